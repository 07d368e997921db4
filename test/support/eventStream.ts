// A Server-Sent Events client for the run event stream, as a browser's EventSource parses it
// (WHATWG HTML, "Server-sent events"): frames of `id:`, `event:` and `data:` lines ended by a blank
// line; comment lines (heartbeats) counted but not frames.

export interface SseFrame {
  id: string | undefined;
  event: string;
  data: string;
}

export interface StreamAnswer {
  status: number;
  contentType: string | null;
  frames: SseFrame[];
  comments: number;
  /** The JSON body when the answer was not a stream (an error before the stream started). */
  json?: unknown;
}

/**
 * Opens the stream and reads frames until the server ends it, or until `stopAfter` returns true for
 * a frame (then the connection is dropped, as a client losing its network would).
 */
export async function readEventStream(
  url: string,
  headers: Record<string, string>,
  stopAfter?: (frame: SseFrame, frames: SseFrame[]) => boolean,
): Promise<StreamAnswer> {
  const dropped = new AbortController();
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: dropped.signal });
  const contentType = response.headers.get('content-type');
  if (!contentType?.startsWith('text/event-stream')) return { status: response.status, contentType, frames: [], comments: 0, json: await response.json() };
  const answer: StreamAnswer = { status: response.status, contentType, frames: [], comments: 0 };
  const decoder = new TextDecoder();
  let buffer = '';
  let frame: { id?: string; event?: string; data?: string[] } = {};
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline).replace(/\r$/, '');
        buffer = buffer.slice(newline + 1);
        if (line === '') {
          if (frame.data) {
            const done: SseFrame = { id: frame.id, event: frame.event ?? 'message', data: frame.data.join('\n') };
            answer.frames.push(done);
            if (stopAfter?.(done, answer.frames)) {
              dropped.abort();
              return answer;
            }
          }
          frame = {};
        } else if (line.startsWith(':')) {
          answer.comments += 1;
        } else {
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'id') frame.id = value;
          else if (field === 'event') frame.event = value;
          else if (field === 'data') (frame.data ??= []).push(value);
        }
      }
    }
  } catch (error) {
    if (!dropped.signal.aborted) throw error;
  }
  return answer;
}
