// Server-side cursors. A query's result is materialised when the cursor opens (a snapshot of
// immutable stored documents), then handed out in batches by `getMore`.
import { Long, calculateObjectSize, type Document } from 'bson';
import { CommandError } from './errors.js';
import { BSON_WRITE_OPTIONS } from '../wire/messages.js';

const DEFAULT_FIRST_BATCH = 101;
/** A reply must stay under 16 MB; leave room for the envelope. */
const BATCH_BYTES = 16 * 1024 * 1024 - 64 * 1024;
const IDLE_TIMEOUT_MS = 10 * 60 * 1000;

interface OpenCursor {
  ns: string;
  docs: Document[];
  position: number;
  map: (doc: Document) => Document;
  lastUsed: number;
}

export class CursorStore {
  private readonly cursors = new Map<number, OpenCursor>();
  private nextId = 1 + Math.floor(Math.random() * 1_000_000_000);

  /**
   * First batch of a result set; the cursor stays open while documents remain. `map` (projection)
   * is applied lazily to the documents handed out.
   */
  open(ns: string, docs: Document[], options: { batchSize?: number; singleBatch?: boolean; map?: (doc: Document) => Document }): Document {
    const cursor: OpenCursor = { ns, docs, position: 0, map: options.map ?? ((doc) => doc), lastUsed: Date.now() };
    const firstBatch = takeBatch(cursor, options.batchSize ?? DEFAULT_FIRST_BATCH);
    let id = 0;
    if (cursor.position < docs.length && !options.singleBatch) {
      id = this.nextId++;
      this.cursors.set(id, cursor);
    }
    return { cursor: { firstBatch, id: Long.fromNumber(id), ns }, ok: 1 };
  }

  getMore(id: number, collection: string, db: string, batchSize: number | undefined): Document {
    const cursor = this.cursors.get(id);
    if (!cursor) throw new CommandError(43, `cursor id ${id} not found`);
    if (cursor.ns !== `${db}.${collection}` && !cursor.ns.startsWith(`${db}.$cmd`)) {
      throw new CommandError(13, `Requested getMore on namespace '${db}.${collection}', but cursor belongs to a different namespace ${cursor.ns}`);
    }
    cursor.lastUsed = Date.now();
    const nextBatch = takeBatch(cursor, batchSize && batchSize > 0 ? batchSize : Infinity);
    const done = cursor.position >= cursor.docs.length;
    if (done) this.cursors.delete(id);
    return { cursor: { nextBatch, id: Long.fromNumber(done ? 0 : id), ns: cursor.ns }, ok: 1 };
  }

  kill(ids: number[]): Document {
    const killed: Long[] = [];
    const notFound: Long[] = [];
    for (const id of ids) (this.cursors.delete(id) ? killed : notFound).push(Long.fromNumber(id));
    return { cursorsKilled: killed, cursorsNotFound: notFound, cursorsAlive: [], cursorsUnknown: [], ok: 1 };
  }

  /** Closes cursors nobody asked for in a while, as MongoDB's cursor timeout does. */
  reap(now: number): void {
    for (const [id, cursor] of this.cursors) if (now - cursor.lastUsed > IDLE_TIMEOUT_MS) this.cursors.delete(id);
  }

  get size(): number {
    return this.cursors.size;
  }
}

function takeBatch(cursor: OpenCursor, limit: number): Document[] {
  const batch: Document[] = [];
  let bytes = 0;
  while (cursor.position < cursor.docs.length && batch.length < limit) {
    const doc = cursor.map(cursor.docs[cursor.position] as Document);
    const size = calculateObjectSize(doc, BSON_WRITE_OPTIONS);
    if (batch.length > 0 && bytes + size > BATCH_BYTES) break;
    batch.push(doc);
    bytes += size;
    cursor.position++;
  }
  return batch;
}
