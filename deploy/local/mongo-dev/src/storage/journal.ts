// The `--dbpath` journal: one append-only file of frames, one frame per command's writes, so a
// command is replayed whole or not at all. Frame = int32 length | uint32 crc32 | BSON {ops: [...]}.
// A torn or corrupt tail (an unclean kill mid-write) is cut off at start-up, never fatal.
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, ftruncateSync, writeSync, unlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { crc32 } from 'node:zlib';
import { deserialize, serialize, type Document } from 'bson';
import { BSON_READ_OPTIONS } from '../wire/messages.js';

export type JournalOp =
  | { t: 'create'; db: string; c: string; options: Document; uuid: unknown }
  | { t: 'drop'; db: string; c: string }
  | { t: 'dropDatabase'; db: string }
  | { t: 'rename'; db: string; c: string; toDb: string; to: string }
  | { t: 'index'; db: string; c: string; spec: Document }
  | { t: 'dropIndex'; db: string; c: string; name: string }
  | { t: 'put'; db: string; c: string; doc: Document }
  | { t: 'delete'; db: string; c: string; id: unknown };

const FILE = 'journal.bson';
const COMPACTING = 'journal.compact';
const LOCK = 'mongod.lock';
const FRAME_HEADER = 8;
/** dbpaths held by servers in this process (the pid in the lock file cannot tell them apart). */
const heldHere = new Set<string>();
/** Compact when the journal is this many times bigger than the last snapshot (and at least 8 MB). */
const GROWTH_FACTOR = 4;
const MIN_COMPACT_BYTES = 8 * 1024 * 1024;

export class Journal {
  private fd: number;
  private bytes = 0;
  private snapshotBytes = 0;
  private dirty = false;

  private constructor(
    private readonly dir: string,
    private readonly log: (line: string) => void,
  ) {
    this.fd = -1;
  }

  /** Opens (creating) the journal under `dir`, returning it with the operations to replay. */
  static open(dir: string, log: (line: string) => void): { journal: Journal; ops: JournalOp[] } {
    mkdirSync(dir, { recursive: true });
    const journal = new Journal(dir, log);
    journal.takeLock();
    if (existsSync(join(dir, COMPACTING))) unlinkSync(join(dir, COMPACTING)); // a compaction that never finished
    const path = join(dir, FILE);
    const data = existsSync(path) ? readFileSync(path) : Buffer.alloc(0);
    const { ops, validBytes } = readFrames(data);
    if (validBytes < data.length) log(`journal: ignoring ${data.length - validBytes} bytes of a torn or corrupt last record`);
    journal.fd = openSync(path, 'a+');
    if (validBytes < data.length) ftruncateSync(journal.fd, validBytes);
    journal.bytes = validBytes;
    journal.snapshotBytes = validBytes;
    return { journal, ops };
  }

  private takeLock(): void {
    const lock = join(this.dir, LOCK);
    if (heldHere.has(resolve(this.dir))) throw new Error(`dbpath ${this.dir} is in use by another server in this process`);
    if (existsSync(lock)) {
      const pid = Number(readFileSync(lock, 'utf8').trim());
      if (pid && pid !== process.pid && processAlive(pid)) {
        throw new Error(`dbpath ${this.dir} is in use by process ${pid}`);
      }
    }
    const fd = openSync(lock, 'w');
    writeSync(fd, String(process.pid));
    closeSync(fd);
    heldHere.add(resolve(this.dir));
  }

  append(ops: JournalOp[]): void {
    if (ops.length === 0) return;
    const frame = encodeFrame(ops);
    writeFully(this.fd, frame);
    this.bytes += frame.length;
    this.dirty = true;
  }

  shouldCompact(): boolean {
    return this.bytes > MIN_COMPACT_BYTES && this.bytes > this.snapshotBytes * GROWTH_FACTOR;
  }

  /** Rewrites the journal as a snapshot of the current state (write to a side file, fsync, rename). */
  compact(snapshot: Iterable<JournalOp[]>): void {
    const temp = join(this.dir, COMPACTING);
    const fd = openSync(temp, 'w');
    let bytes = 0;
    for (const ops of snapshot) {
      const frame = encodeFrame(ops);
      writeFully(fd, frame);
      bytes += frame.length;
    }
    fsyncSync(fd);
    closeSync(fd);
    closeSync(this.fd);
    renameSync(temp, join(this.dir, FILE));
    syncDirectory(this.dir);
    this.fd = openSync(join(this.dir, FILE), 'a+');
    this.log(`journal: compacted ${this.bytes} bytes into ${bytes}`);
    this.bytes = bytes;
    this.snapshotBytes = bytes;
    this.dirty = false;
  }

  flush(): void {
    if (!this.dirty) return;
    fsyncSync(this.fd);
    this.dirty = false;
  }

  close(): void {
    if (this.fd < 0) return;
    this.flush();
    closeSync(this.fd);
    this.fd = -1;
    heldHere.delete(resolve(this.dir));
    try {
      unlinkSync(join(this.dir, LOCK));
    } catch {
      // already gone
    }
  }
}

function writeFully(fd: number, data: Buffer): void {
  let offset = 0;
  while (offset < data.length) offset += writeSync(fd, data, offset, data.length - offset);
}

function encodeFrame(ops: JournalOp[]): Buffer {
  const body = serialize({ ops }, { ignoreUndefined: true });
  const frame = Buffer.allocUnsafe(FRAME_HEADER + body.length);
  frame.writeInt32LE(body.length, 0);
  frame.writeUInt32LE(crc32(body), 4);
  frame.set(body, FRAME_HEADER);
  return frame;
}

function readFrames(data: Buffer): { ops: JournalOp[]; validBytes: number } {
  const ops: JournalOp[] = [];
  let offset = 0;
  while (offset + FRAME_HEADER <= data.length) {
    const length = data.readInt32LE(offset);
    const end = offset + FRAME_HEADER + length;
    if (length < 5 || end > data.length) break;
    const body = data.subarray(offset + FRAME_HEADER, end);
    if (crc32(body) !== data.readUInt32LE(offset + 4)) break;
    let frame: Document;
    try {
      frame = deserialize(body, BSON_READ_OPTIONS);
    } catch {
      break;
    }
    if (!Array.isArray(frame.ops)) break;
    for (const op of frame.ops as JournalOp[]) ops.push(op);
    offset = end;
  }
  return { ops, validBytes: offset };
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function syncDirectory(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    fsyncSync(fd);
    closeSync(fd);
  } catch {
    // not supported on every platform; the rename itself is atomic
  }
}
