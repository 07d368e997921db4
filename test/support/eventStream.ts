// A Server-Sent Events client for the run event stream, framed as a browser's EventSource does
// (`sseItems` of @ars/testenv); comment lines (heartbeats) counted but not frames.
import { sseItems, type SseFrame } from '@ars/testenv';

export type { SseFrame };

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
  try {
    for await (const item of sseItems(response.body as unknown as AsyncIterable<Uint8Array>)) {
      if (item.kind === 'comment') {
        answer.comments += 1;
        continue;
      }
      answer.frames.push(item.frame);
      if (stopAfter?.(item.frame, answer.frames)) {
        dropped.abort();
        return answer;
      }
    }
  } catch (error) {
    if (!dropped.signal.aborted) throw error;
  }
  return answer;
}
