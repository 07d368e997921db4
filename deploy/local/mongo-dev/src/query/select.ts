// Reading documents: filter (mingo's query language, errors translated to MongoDB's), the
// candidate set from `_id` or an index when the filter pins one by equality, then sort, skip,
// limit and projection in that order, as `find` does.
import type { Document } from 'bson';
import { Query } from 'mingo/query';
import { compare } from 'mingo/util';
import { CommandError, fromMingoError } from '../commands/errors.js';
import type { Collection } from '../storage/collection.js';
import type { Index } from '../storage/indexes.js';
import { isPlainObject, valueKey, valuesAtPath, type Doc } from '../storage/values.js';
import { queryOptions } from './mingo.js';
import { rewriteTypeOperators } from './types.js';

export interface Matcher {
  test(doc: Doc): boolean;
}

export function compileFilter(filter: unknown, variables?: Document): Matcher {
  if (filter === undefined || filter === null) filter = {};
  if (!isPlainObject(filter)) throw new CommandError(14, 'filter must be an object');
  const fast = variables ? undefined : fastMatcher(filter);
  if (fast) return { test: fast };
  let query: Query;
  try {
    query = new Query(rewriteTypeOperators(filter), queryOptions(variables));
  } catch (error) {
    throw fromMingoError(error);
  }
  return {
    test: (doc) => {
      try {
        return query.test(doc);
      } catch (error) {
        throw fromMingoError(error);
      }
    },
  };
}

/**
 * A native matcher for the commonest filters (empty, plain equality on scalar values, `$in` of
 * scalar values — what an equality `$lookup` sends per document), which skips compiling a mingo
 * query. Anything subtler goes to mingo.
 */
function fastMatcher(filter: Record<string, unknown>): ((doc: Doc) => boolean) | undefined {
  const checks: Array<(doc: Doc) => boolean> = [];
  for (const [path, condition] of Object.entries(filter)) {
    if (path.startsWith('$') || path.split('.').some((part) => part === '' || /^\d+$/.test(part))) return undefined;
    const check = equalityCheck(path, condition) ?? inCheck(path, condition);
    if (!check) return undefined;
    checks.push(check);
  }
  return (doc) => checks.every((check) => check(doc));
}

/** `{path: value}` or `{path: {$eq: value}}` with a scalar value: some value at the path has its key. */
function equalityCheck(path: string, condition: unknown): ((doc: Doc) => boolean) | undefined {
  let value = condition;
  if (isPlainObject(value)) {
    const keys = Object.keys(value);
    if (keys.length !== 1 || keys[0] !== '$eq') return undefined;
    value = value.$eq;
  }
  if (!isSimpleScalar(value)) return undefined;
  const key = valueKey(value);
  return (doc) => valuesAtPath(doc, path).some((candidate) => candidate !== undefined && valueKey(candidate) === key);
}

/**
 * `{field: {$in: [scalars]}}`: the field's value, or an element of it, equals one of them. Only
 * values of the same kinds count (mingo's `$in` compares types strictly: a stored Long is no match
 * for a number). Left to mingo: `null` in the list (which also matches a missing field) and dotted
 * paths, where mingo's answers through nested arrays differ from a plain fan-out.
 */
function inCheck(path: string, condition: unknown): ((doc: Doc) => boolean) | undefined {
  if (path.includes('.') || !isPlainObject(condition)) return undefined;
  const keys = Object.keys(condition);
  const list = condition.$in;
  if (keys.length !== 1 || !Array.isArray(list) || !list.every(isSimpleScalar)) return undefined;
  const wanted = new Set(list.map(valueKey));
  return (doc) => valuesAtPath(doc, path).some((candidate) => isSimpleScalar(candidate) && wanted.has(valueKey(candidate)));
}

function isSimpleScalar(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object':
      if (value instanceof Date) return true;
      return value !== null && (value as { _bsontype?: unknown })._bsontype === 'ObjectId';
    default:
      return false;
  }
}

/** Sorts like MongoDB: missing is null; an array sorts by its least (ascending) or greatest (descending) element. */
export function sortDocs(docs: Doc[], sort: Document): Doc[] {
  if ('$natural' in sort) return sort.$natural === -1 ? [...docs].reverse() : docs;
  const keys = Object.entries(sort).map(([path, direction]) => ({ path, direction: direction === -1 ? -1 : 1 }));
  const sortKey = (doc: Doc, path: string, direction: number): unknown => {
    const values = valuesAtPath(doc, path).map((value) => (value === undefined ? null : value));
    if (values.length === 1) return values[0];
    return values.reduce((best, value) => (compare(value, best) * direction < 0 ? value : best));
  };
  const decorated = docs.map((doc, index) => ({ doc, index, keys: keys.map(({ path, direction }) => sortKey(doc, path, direction)) }));
  decorated.sort((a, b) => {
    for (let i = 0; i < keys.length; i++) {
      const order = compare(a.keys[i], b.keys[i]) * (keys[i] as { direction: number }).direction;
      if (order !== 0) return order;
    }
    return a.index - b.index;
  });
  return decorated.map((entry) => entry.doc);
}

/** Equality values a filter pins a field to (several for `$in`), or undefined when it does not. */
function pinnedValues(filter: Document, field: string): unknown[] | undefined {
  if (!(field in filter)) return undefined;
  const value = filter[field] as unknown;
  if (isPlainObject(value)) {
    const keys = Object.keys(value);
    if (keys.some((key) => key.startsWith('$'))) {
      if (keys.length !== 1) return undefined;
      if (keys[0] === '$eq') return usable(value.$eq) ? [value.$eq] : undefined;
      if (keys[0] === '$in' && Array.isArray(value.$in) && value.$in.every(usable)) return value.$in;
      return undefined;
    }
    return [value];
  }
  return usable(value) ? [value] : undefined;
}

function usable(value: unknown): boolean {
  if (Array.isArray(value) || value instanceof RegExp) return false;
  const tag = typeof value === 'object' && value !== null ? (value as { _bsontype?: unknown })._bsontype : undefined;
  return tag !== 'BSONRegExp';
}

/**
 * Documents that may match, in natural order when no index narrows them. A superset: the caller
 * still tests each one against the full filter. Preference (each keeps the order it had before
 * the next one existed): `_id`, an index with all fields pinned, a sparse index for `$exists`, an
 * index with its leading fields pinned (in natural order, as the scan it replaces), a scan.
 */
export function candidates(collection: Collection, filter: Document): Iterable<Doc> {
  const ids = pinnedValues(filter, '_id');
  if (ids) {
    const byKey = new Map<string, Doc>();
    for (const id of ids) {
      const doc = collection.getById(id);
      if (doc) byKey.set(valueKey(id), doc);
    }
    return byKey.values();
  }
  const found = indexCandidates(collection, filter, 'all') ?? existsCandidates(collection, filter);
  if (found) return docsOf(collection, found);
  const byPrefix = indexCandidates(collection, filter, 'prefix');
  return byPrefix ? collection.inNaturalOrder(byPrefix) : collection.docs.values();
}

/** The documents of these primary keys, in the order given. */
function docsOf(collection: Collection, idKeys: Set<string>): Doc[] {
  const docs: Doc[] = [];
  for (const idKey of idKeys) {
    const doc = collection.docs.get(idKey);
    if (doc) docs.push(doc);
  }
  return docs;
}

/**
 * Primary keys from the complete index whose pins narrow the most: with all its fields pinned by
 * equality (`all`), or only some leading fields (`prefix`). Undefined when no index qualifies.
 */
function indexCandidates(collection: Collection, filter: Document, mode: 'all' | 'prefix'): Set<string> | undefined {
  let best: Set<string> | undefined;
  for (const index of collection.indexes.values()) {
    if (!index.complete) continue;
    const pinned = mode === 'all' ? leadingPins(filter, index.fields, pinnedValues) : leadingPins(filter, index.fields, prefixPinnedValues);
    const qualifies = mode === 'all' ? pinned.length === index.fields.length : pinned.length > 0 && pinned.length < index.fields.length;
    if (!qualifies) continue;
    const found = lookupCombinations(index, pinned);
    if (!found) continue;
    if (!best || found.size < best.size) best = found;
    if (best.size === 0) break;
  }
  return best;
}

/** The pinned values of an index's leading fields, up to the first field the filter does not pin. */
function leadingPins(filter: Document, fields: string[], pinsOf: (filter: Document, field: string) => unknown[] | undefined): unknown[][] {
  const pinned: unknown[][] = [];
  for (const field of fields) {
    const values = pinsOf(filter, field);
    if (!values) break;
    pinned.push(values);
  }
  return pinned;
}

/**
 * Pins a prefix lookup may use: top-level fields pinned to scalars or null. There mingo's equality
 * (which decides the answer) never matches a value the index keys differently — unlike sub-documents
 * (field order) or dotted paths (mingo flattens nested arrays) — so the candidates stay a superset
 * of the scan they replace.
 */
function prefixPinnedValues(filter: Document, field: string): unknown[] | undefined {
  if (field.includes('.')) return undefined;
  const values = pinnedValues(filter, field);
  return values?.every((value) => value === null || isSimpleScalar(value)) ? values : undefined;
}

/** Primary keys under every combination of the pinned values (undefined past 1000 combinations). */
function lookupCombinations(index: Index, pinned: unknown[][]): Set<string> | undefined {
  let combos: unknown[][] = [[]];
  for (const values of pinned) combos = combos.flatMap((prefix) => values.map((value) => [...prefix, value]));
  if (combos.length > 1000) return undefined;
  const found = new Set<string>();
  for (const combo of combos) for (const idKey of index.lookup(combo) ?? []) found.add(idKey);
  return found;
}

/**
 * `{field: {$exists: true}}` over a sparse single-field index (no partial filter): the index holds
 * every document where the field exists — the outbox relay's polling query.
 */
function existsCandidates(collection: Collection, filter: Document): Set<string> | undefined {
  for (const index of collection.indexes.values()) {
    if (index.spec.sparse !== true || index.spec.partialFilterExpression || index.fields.length !== 1) continue;
    const condition = filter[index.fields[0] as string] as unknown;
    if (!isPlainObject(condition) || condition.$exists !== true) continue;
    const found = new Set<string>();
    for (const holders of index.entries.values()) for (const idKey of holders) found.add(idKey);
    return found;
  }
  return undefined;
}

export interface SelectOptions {
  filter?: Document;
  sort?: Document;
  skip?: number;
  limit?: number;
  projection?: Document;
  variables?: Document;
}

/** Matching documents (stored objects, not copies) after filter, sort, skip and limit. */
export function selectDocs(collection: Collection | undefined, options: SelectOptions): Doc[] {
  if (!collection) {
    compileFilter(options.filter);
    return [];
  }
  const filter = options.filter ?? {};
  const matcher = compileFilter(filter, options.variables);
  const sort = options.sort && Object.keys(options.sort).length > 0 ? validateSort(options.sort) : undefined;
  const skip = options.skip ?? 0;
  const limit = options.limit ?? 0;
  const matched: Doc[] = [];
  const stopAt = !sort && limit > 0 ? skip + limit : Infinity;
  for (const doc of candidates(collection, filter)) {
    if (!matcher.test(doc)) continue;
    matched.push(doc);
    if (matched.length >= stopAt) break;
  }
  let result = matched;
  if (sort) result = sortDocs(matched, sort);
  if (skip > 0 || limit > 0) result = result.slice(skip, limit > 0 ? skip + limit : undefined);
  return result;
}

function validateSort(sort: Document): Document {
  for (const [field, direction] of Object.entries(sort)) {
    if (direction === 1 || direction === -1) continue;
    if (isPlainObject(direction) && direction.$meta !== undefined) {
      throw new CommandError(2, `$meta sort by '${String(direction.$meta)}' is not supported by the development server`);
    }
    throw new CommandError(2, `$sort key ordering must be 1 (for ascending) or -1 (for descending) (field '${field}')`);
  }
  return sort;
}

/** A projector for `find`'s projection; keeps the stored document's field order, `_id` first. */
export function projector(projection: Document | undefined, filter: Document | undefined): (doc: Doc) => Doc {
  if (!projection || Object.keys(projection).length === 0) return (doc) => doc;
  checkProjectionKinds(projection);
  const fast = fastProjector(projection);
  if (fast) return fast;
  let query: Query;
  try {
    query = new Query(rewriteTypeOperators(filter ?? {}), queryOptions());
  } catch (error) {
    throw fromMingoError(error);
  }
  try {
    // Validate now: a bad projection must fail even when nothing matches.
    query.find<Doc>([{}], projection).next();
  } catch (error) {
    if (!(error instanceof TypeError)) throw fromMingoError(error);
  }
  return (doc) => {
    let projected: Doc;
    try {
      projected = (query.find<Doc>([doc], projection).next() ?? {}) as Doc;
    } catch (error) {
      throw fromMingoError(error);
    }
    const ordered: Doc = {};
    for (const key of Object.keys(doc)) if (key in projected) ordered[key] = projected[key];
    for (const key of Object.keys(projected)) if (!(key in ordered)) ordered[key] = projected[key];
    return ordered;
  };
}

/** MongoDB's errors for a projection mixing inclusion and exclusion (other than of `_id`). */
function checkProjectionKinds(projection: Document): void {
  let kind: 'inclusion' | 'exclusion' | undefined;
  for (const [field, flag] of Object.entries(projection)) {
    if (field === '_id' || !(flag === 0 || flag === 1 || flag === true || flag === false)) continue;
    const current = flag === 0 || flag === false ? 'exclusion' : 'inclusion';
    kind ??= current;
    if (current !== kind) {
      throw kind === 'inclusion'
        ? new CommandError(31254, `Cannot do exclusion on field ${field} in inclusion projection`)
        : new CommandError(31253, `Cannot do inclusion on field ${field} in exclusion projection`);
    }
  }
}

/** Top-level inclusion or exclusion of plain field names, without compiling a mingo query. */
function fastProjector(projection: Document): ((doc: Doc) => Doc) | undefined {
  const entries = Object.entries(projection);
  if (entries.some(([field, flag]) => field.includes('.') || field.startsWith('$') || !(flag === 0 || flag === 1 || flag === true || flag === false)))
    return undefined;
  const others = entries.filter(([field]) => field !== '_id');
  const including = others.some(([, flag]) => flag === 1 || flag === true);
  if (others.some(([, flag]) => (flag === 1 || flag === true) !== including)) return undefined;
  const idFlag = projection._id as unknown;
  const keepId = idFlag === undefined || idFlag === 1 || idFlag === true;
  const named = new Set(others.map(([field]) => field));
  if (including || (others.length === 0 && keepId)) {
    return (doc) => {
      const out: Doc = {};
      for (const key of Object.keys(doc)) if (key === '_id' ? keepId : named.has(key)) out[key] = doc[key];
      return out;
    };
  }
  return (doc) => {
    const out: Doc = {};
    for (const key of Object.keys(doc)) if (key === '_id' ? keepId : !named.has(key)) out[key] = doc[key];
    return out;
  };
}

export function distinctValues(docs: Doc[], key: string): unknown[] {
  const seen = new Map<string, unknown>();
  for (const doc of docs) {
    for (const value of valuesAtPath(doc, key)) {
      if (value === undefined) continue;
      const id = valueKey(value);
      if (!seen.has(id)) seen.set(id, value);
    }
  }
  return [...seen.values()];
}
