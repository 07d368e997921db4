// Server-Sent Events framing as a browser's EventSource parses it (WHATWG HTML, "Server-sent
// events"): frames of `id:`, `event:` and `data:` lines ended by a blank line; comment lines (`:`,
// heartbeats) are not frames. One parser for the tests' stream client and the benchmarks'.

export interface SseFrame {
  id: string | undefined;
  event: string;
  data: string;
}

/** What a stream's body holds, in order: frames, and comment lines (heartbeats). */
export type SseItem = { kind: 'frame'; frame: SseFrame } | { kind: 'comment' };

/** Parses a `text/event-stream` body as it arrives: each frame is yielded once its blank line is read. */
export async function* sseItems(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseItem> {
  const decoder = new TextDecoder();
  let buffer = '';
  let frame: { id?: string; event?: string; data?: string[] } = {};
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline).replace(/\r$/, '');
      buffer = buffer.slice(newline + 1);
      if (line === '') {
        if (frame.data) yield { kind: 'frame', frame: { id: frame.id, event: frame.event ?? 'message', data: frame.data.join('\n') } };
        frame = {};
      } else if (line.startsWith(':')) {
        yield { kind: 'comment' };
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
}
