// Server-Sent Events framing (WHATWG HTML, "Server-sent events"): what the run event stream writes.
// No I/O.
import type { Run, RunEvent } from '@ars/contract';

/** One SSE event: `id:` (when given), `event:`, one `data:` line per line of `data`, a blank line. */
export function sseEvent(event: string, data: string, id?: string): string {
  const lines = data.split(/\r\n|\r|\n/).map((line) => `data: ${line}\n`);
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\n${lines.join('')}\n`;
}

/** A run event as the stream carries it: its id as the SSE id (so `Last-Event-ID` resumes after it), its type as the event name. */
export function runEventFrame(event: RunEvent): string {
  return sseEvent(event.type, JSON.stringify(event), event.id);
}

/** A status change of the run: `event: run`, no `id:` (it is no run event, and must not move the resume point). */
export function runStatusFrame(run: Run): string {
  return sseEvent('run', JSON.stringify(run));
}

/** A comment line: ignored by clients, keeps proxies and the client's idle timers from closing a quiet stream. */
export const HEARTBEAT = ': heartbeat\n\n';

/** The stream failed after it started (the JSON envelope can no longer be sent): one `error` event, then the end. */
export function streamErrorFrame(code: string, message: string): string {
  return sseEvent('error', JSON.stringify({ code, message }));
}

/** `Accept` asks for the event stream (and the JSON answer is kept for everything else). */
export function wantsEventStream(accept: string | undefined): boolean {
  return /(^|,)\s*text\/event-stream\s*(;|,|$)/i.test(accept ?? '');
}
