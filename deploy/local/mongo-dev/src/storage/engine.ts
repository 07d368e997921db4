// All databases of one server and the only path by which state changes: every mutation is applied
// in memory and recorded; `commit()` after each command appends that command's records to the
// journal as one frame. Everything here is synchronous, which is what makes each command atomic
// and applies commands in arrival order.
import type { Document, UUID } from 'bson';
import { CommandError } from '../commands/errors.js';
import { Collection } from './collection.js';
import type { IndexSpec } from './indexes.js';
import { Journal, type JournalOp } from './journal.js';
import { valueKey, type Doc } from './values.js';

const SNAPSHOT_BATCH = 1000;

export class Engine {
  readonly databases = new Map<string, Map<string, Collection>>();
  private pending: JournalOp[] = [];
  private replaying = false;

  constructor(
    private readonly journal?: Journal,
    private readonly log: (line: string) => void = () => {},
  ) {}

  static open(dbpath: string | undefined, log: (line: string) => void): Engine {
    if (!dbpath) return new Engine(undefined, log);
    const { journal, ops } = Journal.open(dbpath, log);
    const engine = new Engine(journal, log);
    engine.replay(ops);
    log(`journal: replayed ${ops.length} operations from ${dbpath}`);
    if (journal.shouldCompact()) journal.compact(engine.snapshot());
    return engine;
  }

  private replay(ops: JournalOp[]): void {
    this.replaying = true;
    try {
      for (const op of ops) {
        try {
          this.apply(op);
        } catch (error) {
          this.log(`journal: skipped a record that no longer applies (${op.t} ${op.db}): ${(error as Error).message}`);
        }
      }
    } finally {
      this.replaying = false;
      this.pending = [];
    }
  }

  private apply(op: JournalOp): void {
    switch (op.t) {
      case 'create':
        this.createCollection(op.db, op.c, op.options, op.uuid as UUID);
        break;
      case 'drop':
        this.dropCollection(op.db, op.c);
        break;
      case 'dropDatabase':
        this.dropDatabase(op.db);
        break;
      case 'rename': {
        const source = this.collection(op.db, op.c);
        if (source) this.renameCollection(source, op.toDb, op.to);
        break;
      }
      case 'index': {
        this.createIndex(this.ensureCollection(op.db, op.c), op.spec as IndexSpec);
        break;
      }
      case 'dropIndex': {
        const collection = this.collection(op.db, op.c);
        if (collection) this.dropIndex(collection, op.name);
        break;
      }
      case 'put': {
        const collection = this.ensureCollection(op.db, op.c);
        const previous = collection.getById(op.doc._id);
        if (previous) collection.replace(previous, op.doc);
        else collection.insert(op.doc);
        break;
      }
      case 'delete': {
        const collection = this.collection(op.db, op.c);
        const doc = collection?.getById(op.id);
        if (collection && doc) collection.remove(doc);
        break;
      }
    }
  }

  private record(op: JournalOp): void {
    if (this.journal && !this.replaying) this.pending.push(op);
  }

  /** Appends the current command's changes to the journal as one frame. */
  commit(): void {
    if (!this.journal || this.pending.length === 0) return;
    const ops = this.pending;
    this.pending = [];
    this.journal.append(ops);
    if (this.journal.shouldCompact()) this.journal.compact(this.snapshot());
  }

  flush(): void {
    this.journal?.flush();
  }

  close(): void {
    this.commit();
    this.journal?.close();
  }

  collection(db: string, name: string): Collection | undefined {
    return this.databases.get(db)?.get(name);
  }

  collections(db: string): Collection[] {
    return [...(this.databases.get(db)?.values() ?? [])];
  }

  ensureCollection(db: string, name: string): Collection {
    return this.collection(db, name) ?? this.createCollection(db, name, {});
  }

  createCollection(db: string, name: string, options: Document, uuid?: UUID): Collection {
    validateNamespace(db, name);
    if (this.collection(db, name)) throw new CommandError(48, `Collection ${db}.${name} already exists.`);
    let database = this.databases.get(db);
    if (!database) this.databases.set(db, (database = new Map()));
    const collection = new Collection(db, name, options, uuid);
    database.set(name, collection);
    this.record({ t: 'create', db, c: name, options, uuid: collection.uuid });
    return collection;
  }

  dropCollection(db: string, name: string): boolean {
    const database = this.databases.get(db);
    if (!database?.delete(name)) return false;
    if (database.size === 0) this.databases.delete(db);
    this.record({ t: 'drop', db, c: name });
    return true;
  }

  /** Moves a collection (documents, indexes, uuid) to a new namespace; the target must not exist. */
  renameCollection(source: Collection, toDb: string, toName: string): Collection {
    validateNamespace(toDb, toName);
    if (this.collection(toDb, toName)) throw new CommandError(48, `target namespace exists`);
    const target = new Collection(toDb, toName, source.options, source.uuid);
    for (const index of source.indexes.values()) target.addIndex(index.spec);
    for (const doc of source.docs.values()) target.insert(doc);
    const from = this.databases.get(source.db);
    from?.delete(source.name);
    if (from?.size === 0) this.databases.delete(source.db);
    let database = this.databases.get(toDb);
    if (!database) this.databases.set(toDb, (database = new Map()));
    database.set(toName, target);
    this.record({ t: 'rename', db: source.db, c: source.name, toDb, to: toName });
    return target;
  }

  dropDatabase(db: string): void {
    if (!this.databases.delete(db)) return;
    this.record({ t: 'dropDatabase', db });
  }

  insert(collection: Collection, doc: Doc): void {
    collection.insert(doc);
    this.record({ t: 'put', db: collection.db, c: collection.name, doc });
  }

  replace(collection: Collection, previous: Doc, next: Doc): void {
    collection.replace(previous, next);
    this.record({ t: 'put', db: collection.db, c: collection.name, doc: next });
  }

  remove(collection: Collection, doc: Doc): void {
    collection.remove(doc);
    this.record({ t: 'delete', db: collection.db, c: collection.name, id: doc._id });
  }

  createIndex(collection: Collection, spec: IndexSpec): void {
    collection.addIndex(spec);
    this.record({ t: 'index', db: collection.db, c: collection.name, spec });
  }

  dropIndex(collection: Collection, name: string): void {
    collection.dropIndex(name);
    this.record({ t: 'dropIndex', db: collection.db, c: collection.name, name });
  }

  /** The whole state as journal frames: each collection, its documents, then its indexes. */
  *snapshot(): Iterable<JournalOp[]> {
    for (const [db, database] of this.databases) {
      for (const collection of database.values()) {
        yield [{ t: 'create', db, c: collection.name, options: collection.options, uuid: collection.uuid }];
        let batch: JournalOp[] = [];
        for (const doc of collection.docs.values()) {
          batch.push({ t: 'put', db, c: collection.name, doc });
          if (batch.length >= SNAPSHOT_BATCH) {
            yield batch;
            batch = [];
          }
        }
        if (batch.length > 0) yield batch;
        const indexes = [...collection.indexes.values()].map((index): JournalOp => ({ t: 'index', db, c: collection.name, spec: index.spec }));
        if (indexes.length > 0) yield indexes;
      }
    }
  }

  /** Documents whose TTL has passed, removed and journaled. Returns how many. */
  expire(now: number): number {
    let removed = 0;
    for (const database of this.databases.values()) {
      for (const collection of database.values()) {
        for (const index of collection.indexes.values()) {
          const seconds = index.spec.expireAfterSeconds;
          if (seconds === undefined) continue;
          const field = index.fields[0] as string;
          const limit = now - seconds * 1000;
          const expired: Doc[] = [];
          for (const doc of collection.docs.values()) {
            const at = earliestDate(doc, field);
            if (at !== undefined && at <= limit && index.covers(doc)) expired.push(doc);
          }
          for (const doc of expired) this.remove(collection, doc);
          removed += expired.length;
        }
      }
    }
    if (removed > 0) this.commit();
    return removed;
  }
}

function earliestDate(doc: Doc, path: string): number | undefined {
  let value: unknown = doc;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  const values = Array.isArray(value) ? value : [value];
  let earliest: number | undefined;
  for (const item of values) {
    if (item instanceof Date && (earliest === undefined || item.getTime() < earliest)) earliest = item.getTime();
  }
  return earliest;
}

export function validateNamespace(db: string, name: string): void {
  if (db === '' || /[/\\. "$\0]/.test(db)) throw new CommandError(73, `Invalid database name: '${db}'`);
  if (name === '' || name.includes('$') || name.includes('\0') || name.startsWith('.') || name.startsWith('system.')) {
    throw new CommandError(73, `Invalid collection name: '${name}'`);
  }
}

export { valueKey };
