// Secondary indexes: a hash of index key → set of primary keys, maintained on every write. They
// enforce uniqueness without a scan and give equality lookups a candidate set — also when only the
// leading fields of a compound index are pinned (a hash per leading prefix); range queries and
// sorts still run over the collection (correct, just not indexed).
import type { Document } from 'bson';
import { CommandError } from '../commands/errors.js';
import { compileFilter, type Matcher } from '../query/select.js';
import { valueKey, valuesAtPath, type Doc } from './values.js';

export interface IndexSpec extends Document {
  v: number;
  key: Document;
  name: string;
  unique?: boolean;
  sparse?: boolean;
  partialFilterExpression?: Document;
  expireAfterSeconds?: number;
}

export interface IndexEntry {
  key: string;
  values: unknown[];
  /** `valueKey` of each value: the key of the first k fields is `parts.slice(0, k).join(SEPARATOR)`. */
  parts: string[];
}

const SEPARATOR = '\u0001';

export class Index {
  readonly fields: string[];
  readonly entries = new Map<string, Set<string>>();
  /** For a compound index, `byPrefix[k - 1]`: key of the first k fields → primary keys, for k < fields.length. */
  private readonly byPrefix: Array<Map<string, Set<string>>>;
  private readonly partial: Matcher | undefined;

  constructor(
    readonly spec: IndexSpec,
    private readonly ns: string,
  ) {
    this.fields = Object.keys(spec.key);
    this.byPrefix = this.fields.slice(1).map(() => new Map<string, Set<string>>());
    this.partial = spec.partialFilterExpression ? compileFilter(spec.partialFilterExpression) : undefined;
  }

  get name(): string {
    return this.spec.name;
  }

  get unique(): boolean {
    return this.spec.unique === true;
  }

  /** Usable for equality lookups: it holds every document of the collection. */
  get complete(): boolean {
    return !this.partial && this.spec.sparse !== true;
  }

  /** Whether the partial filter admits the document (TTL only expires what its index holds). */
  covers(doc: Doc): boolean {
    return !this.partial || this.partial.test(doc);
  }

  /** Index keys of a document; none when a partial filter or sparseness leaves it out. */
  entriesOf(doc: Doc): IndexEntry[] {
    if (this.partial && !this.partial.test(doc)) return [];
    const perField = this.fields.map((field) => valuesAtPath(doc, field));
    if (this.spec.sparse && perField.every((values) => values.length === 1 && values[0] === undefined)) return [];
    if (perField.filter((values) => values.length > 1).length > 1) {
      throw new CommandError(171, `cannot index parallel arrays [${this.fields.join('] [')}]`);
    }
    let combos: unknown[][] = [[]];
    for (const values of perField) combos = combos.flatMap((prefix) => values.map((value) => [...prefix, value]));
    const seen = new Map<string, IndexEntry>();
    for (const values of combos) {
      const parts = values.map(valueKey);
      const key = parts.join(SEPARATOR);
      if (!seen.has(key)) seen.set(key, { key, values, parts });
    }
    return [...seen.values()];
  }

  /** Throws the duplicate-key error MongoDB gives when `entries` collide with another document's. */
  checkUnique(entries: IndexEntry[], idKey: string): void {
    if (!this.unique) return;
    for (const entry of entries) {
      const holders = this.entries.get(entry.key);
      if (!holders) continue;
      for (const holder of holders) if (holder !== idKey) throw this.duplicate(entry);
    }
  }

  duplicate(entry: IndexEntry): CommandError {
    const keyValue: Document = {};
    this.fields.forEach((field, i) => (keyValue[field] = entry.values[i] ?? null));
    const shown = this.fields.map((field, i) => `${field}: ${formatValue(entry.values[i])}`).join(', ');
    return new CommandError(11000, `E11000 duplicate key error collection: ${this.ns} index: ${this.name} dup key: { ${shown} }`, {
      keyPattern: this.spec.key,
      keyValue,
    });
  }

  add(idKey: string, entries: IndexEntry[]): void {
    for (const entry of entries) {
      addHolder(this.entries, entry.key, idKey);
      this.byPrefix.forEach((map, i) => addHolder(map, entry.parts.slice(0, i + 1).join(SEPARATOR), idKey));
    }
  }

  /** Removes all of a document's entries (a prefix it shares between entries goes with the last of them). */
  remove(idKey: string, entries: IndexEntry[]): void {
    for (const entry of entries) {
      removeHolder(this.entries, entry.key, idKey);
      this.byPrefix.forEach((map, i) => removeHolder(map, entry.parts.slice(0, i + 1).join(SEPARATOR), idKey));
    }
  }

  /**
   * Primary keys whose first `values.length` index fields equal the given values (one per field):
   * the whole key, or a leading prefix of a compound index.
   */
  lookup(values: unknown[]): Set<string> | undefined {
    const key = values.map(valueKey).join(SEPARATOR);
    return values.length === this.fields.length ? this.entries.get(key) : this.byPrefix[values.length - 1]?.get(key);
  }
}

function addHolder(map: Map<string, Set<string>>, key: string, idKey: string): void {
  let holders = map.get(key);
  if (!holders) map.set(key, (holders = new Set()));
  holders.add(idKey);
}

function removeHolder(map: Map<string, Set<string>>, key: string, idKey: string): void {
  const holders = map.get(key);
  if (!holders) return;
  holders.delete(idKey);
  if (holders.size === 0) map.delete(key);
}

function formatValue(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (value instanceof Date) return `new Date(${value.getTime()})`;
  const tag = typeof value === 'object' ? (value as { _bsontype?: unknown })._bsontype : undefined;
  if (tag === 'ObjectId') return `ObjectId('${(value as { toHexString(): string }).toHexString()}')`;
  if (typeof value === 'object') {
    try {
      return JSON.stringify(value);
    } catch {
      return String(value);
    }
  }
  return String(value);
}

const INDEX_OPTIONS = new Set([
  'v',
  'key',
  'name',
  'unique',
  'sparse',
  'partialFilterExpression',
  'expireAfterSeconds',
  'background',
  'hidden',
  'ns',
  'dropDups',
]);

/** Validates a `createIndexes` entry and normalises it to what `listIndexes` reports. */
export function normaliseIndexSpec(raw: unknown): IndexSpec {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new CommandError(14, 'index specification must be an object');
  const input = raw as Document;
  const key = input.key as unknown;
  if (key === null || typeof key !== 'object' || Array.isArray(key) || Object.keys(key as object).length === 0) {
    throw new CommandError(67, 'Index keys cannot be empty.');
  }
  for (const [field, direction] of Object.entries(key as Document)) {
    if (typeof direction === 'number' && direction !== 0) continue;
    if (direction === 'hashed') continue;
    if (typeof direction === 'string') throw new CommandError(67, `index type '${direction}' is not supported by the development server (field '${field}')`);
    throw new CommandError(67, `Values in the index key pattern can only be numbers or strings (field '${field}')`);
  }
  for (const option of Object.keys(input)) {
    if (option === 'collation' && isSimpleCollation(input.collation)) continue;
    if (!INDEX_OPTIONS.has(option))
      throw new CommandError(197, `The field '${option}' is not valid for an index specification (or not supported by the development server)`);
  }
  const name = input.name ?? defaultIndexName(key as Document);
  if (typeof name !== 'string' || name === '') throw new CommandError(67, 'The index name must be a non-empty string');
  const spec: IndexSpec = { v: 2, key: key as Document, name };
  if (input.unique === true) spec.unique = true;
  if (input.sparse === true) spec.sparse = true;
  if (input.partialFilterExpression !== undefined) {
    if (typeof input.partialFilterExpression !== 'object' || input.partialFilterExpression === null) {
      throw new CommandError(14, 'partialFilterExpression must be an object');
    }
    spec.partialFilterExpression = input.partialFilterExpression as Document;
  }
  if (input.expireAfterSeconds !== undefined) {
    const seconds = input.expireAfterSeconds as unknown;
    if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) {
      throw new CommandError(67, "TTL index 'expireAfterSeconds' option must be a non-negative number");
    }
    if (Object.keys(key as Document).length !== 1) throw new CommandError(67, 'TTL indexes are single-field indexes, compound indexes do not support TTL');
    spec.expireAfterSeconds = seconds;
  }
  if (input.hidden === true) spec.hidden = true;
  return spec;
}

export function isSimpleCollation(collation: unknown): boolean {
  return typeof collation === 'object' && collation !== null && (collation as Document).locale === 'simple';
}

export function defaultIndexName(key: Document): string {
  return Object.entries(key)
    .map(([field, direction]) => `${field}_${String(direction)}`)
    .join('_');
}

/** Same key pattern and same uniqueness/partial/sparse options: MongoDB treats it as the same index. */
export function sameIndexDefinition(a: IndexSpec, b: IndexSpec): boolean {
  return (
    valueKey(a.key) === valueKey(b.key) &&
    (a.unique === true) === (b.unique === true) &&
    (a.sparse === true) === (b.sparse === true) &&
    valueKey(a.partialFilterExpression) === valueKey(b.partialFilterExpression)
  );
}
