// One collection: documents by `_id` in insertion (natural) order, plus its indexes. Stored
// documents are never mutated in place (updates build a new document), so a cursor's snapshot and
// a failed update can never observe or leave a half-applied change.
import { UUID, type Document } from 'bson';
import { CommandError } from '../commands/errors.js';
import { Index, type IndexEntry, type IndexSpec } from './indexes.js';
import { isPlainObject, valueKey, type Doc } from './values.js';

export const ID_INDEX: IndexSpec = { v: 2, key: { _id: 1 }, name: '_id_' };

export class Collection {
  readonly docs = new Map<string, Doc>();
  readonly indexes = new Map<string, Index>();
  readonly uuid: UUID;
  /** Each document's place in natural order (`docs`' insertion order), to order index candidates by it. */
  private readonly positions = new Map<string, number>();
  private nextPosition = 0;

  constructor(
    readonly db: string,
    readonly name: string,
    readonly options: Document = {},
    uuid?: UUID,
  ) {
    this.uuid = uuid ?? new UUID();
  }

  get ns(): string {
    return `${this.db}.${this.name}`;
  }

  get size(): number {
    return this.docs.size;
  }

  indexSpecs(): IndexSpec[] {
    return [ID_INDEX, ...[...this.indexes.values()].map((index) => index.spec)];
  }

  private idDuplicate(id: unknown): CommandError {
    return new Index(ID_INDEX, this.ns).duplicate({ key: '', values: [id], parts: [] });
  }

  private entriesFor(doc: Doc): Array<[Index, IndexEntry[]]> {
    return [...this.indexes.values()].map((index) => [index, index.entriesOf(doc)]);
  }

  insert(doc: Doc): void {
    const id = doc._id;
    if (Array.isArray(id)) throw new CommandError(2, "The '_id' value cannot be of type array");
    if (isPlainObject(id) && Object.keys(id).some((k) => k.startsWith('$'))) {
      throw new CommandError(2, "_id fields may not contain '$'-prefixed fields");
    }
    const idKey = valueKey(id);
    if (this.docs.has(idKey)) throw this.idDuplicate(id);
    const entries = this.entriesFor(doc);
    for (const [index, keys] of entries) index.checkUnique(keys, idKey);
    for (const [index, keys] of entries) index.add(idKey, keys);
    this.docs.set(idKey, doc);
    this.positions.set(idKey, this.nextPosition++);
  }

  /** Replaces the stored document with the same `_id`; the caller guarantees `_id` did not change. */
  replace(previous: Doc, next: Doc): void {
    const idKey = valueKey(previous._id);
    const before = this.entriesFor(previous);
    const after = this.entriesFor(next);
    for (const [index, keys] of after) index.checkUnique(keys, idKey);
    before.forEach(([index, keys]) => index.remove(idKey, keys));
    after.forEach(([index, keys]) => index.add(idKey, keys));
    this.docs.set(idKey, next);
  }

  remove(doc: Doc): void {
    const idKey = valueKey(doc._id);
    if (!this.docs.delete(idKey)) return;
    this.positions.delete(idKey);
    for (const [index, keys] of this.entriesFor(doc)) index.remove(idKey, keys);
  }

  getById(id: unknown): Doc | undefined {
    return this.docs.get(valueKey(id));
  }

  /** The documents with these primary keys, in natural order (as a scan of `docs` would meet them). */
  inNaturalOrder(idKeys: Iterable<string>): Doc[] {
    const present = [...idKeys].filter((idKey) => this.positions.has(idKey));
    present.sort((a, b) => (this.positions.get(a) as number) - (this.positions.get(b) as number));
    return present.map((idKey) => this.docs.get(idKey) as Doc);
  }

  /** Adds an index over the existing documents; fails without change on a duplicate. */
  addIndex(spec: IndexSpec): void {
    const index = new Index(spec, this.ns);
    for (const [idKey, doc] of this.docs) {
      const keys = index.entriesOf(doc);
      index.checkUnique(keys, idKey);
      index.add(idKey, keys);
    }
    this.indexes.set(spec.name, index);
  }

  dropIndex(name: string): void {
    this.indexes.delete(name);
  }
}
