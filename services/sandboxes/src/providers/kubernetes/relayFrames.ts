// The framing between the pod-exec shim (bin/pod-exec-shim.mjs, plain JavaScript: it repeats these
// few lines) and the relay: one byte of type, four bytes of big-endian length, the payload. A frame
// protocol rather than raw pipes because stdout, stderr, stdin's end and the exit code share one socket.

export const FRAME = {
  /** shim → relay, first frame, JSON `{ticket, argv, env}`. */
  hello: 1,
  stdin: 2,
  stdinEnd: 3,
  stdout: 4,
  stderr: 5,
  /** relay → shim, last frame, JSON `{exitCode}`. */
  exit: 6,
  /** relay → shim, last frame, JSON `{message, exitCode}`: the command could not run. */
  error: 7,
} as const;

export type FrameType = (typeof FRAME)[keyof typeof FRAME];

export interface Frame {
  type: number;
  payload: Buffer;
}

const HEADER = 5;
/** A bound on one frame, so a confused peer cannot make the service buffer without end. */
export const MAX_FRAME = 16 * 1024 * 1024;

export function encodeFrame(type: FrameType, payload: Buffer = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(HEADER);
  header[0] = type;
  header.writeUInt32BE(payload.length, 1);
  return Buffer.concat([header, payload]);
}

export function jsonFrame(type: FrameType, value: unknown): Buffer {
  return encodeFrame(type, Buffer.from(JSON.stringify(value), 'utf8'));
}

/** Cuts a byte stream into frames; throws on a frame over MAX_FRAME. */
export class FrameReader {
  private buffer: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Frame[] {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const frames: Frame[] = [];
    while (this.buffer.length >= HEADER) {
      const length = this.buffer.readUInt32BE(1);
      if (length > MAX_FRAME) throw new Error(`a frame of ${length} bytes is over the limit`);
      if (this.buffer.length < HEADER + length) break;
      frames.push({ type: this.buffer[0] ?? 0, payload: this.buffer.subarray(HEADER, HEADER + length) });
      this.buffer = this.buffer.subarray(HEADER + length);
    }
    return frames;
  }
}
