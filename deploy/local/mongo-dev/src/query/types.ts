// `$type` with MongoDB's full list of BSON type names and numbers. mingo's own `$type` knows only
// the JSON-ish types and answers false (silently) for objectId, binData, decimal, timestamp...,
// so filters are rewritten to use this operator instead.
import type { Document } from 'bson';
import { resolve } from 'mingo/util';
import { CommandError } from '../commands/errors.js';
import { isPlainObject } from '../storage/values.js';

export const TYPE_OPERATOR = '$mongoDevType';

const tagOf = (value: unknown): string | undefined =>
  typeof value === 'object' && value !== null ? ((value as { _bsontype?: unknown })._bsontype as string | undefined) : undefined;

const isInt32 = (value: unknown): boolean =>
  (typeof value === 'number' && Number.isInteger(value) && value >= -2147483648 && value <= 2147483647) || tagOf(value) === 'Int32';

const TESTS: Record<string, (value: unknown) => boolean> = {
  double: (value) => typeof value === 'number' || tagOf(value) === 'Double',
  string: (value) => typeof value === 'string',
  object: (value) => isPlainObject(value),
  array: (value) => Array.isArray(value),
  binData: (value) => tagOf(value) === 'Binary',
  undefined: (value) => value === undefined,
  objectId: (value) => tagOf(value) === 'ObjectId',
  bool: (value) => typeof value === 'boolean',
  date: (value) => value instanceof Date,
  null: (value) => value === null,
  regex: (value) => value instanceof RegExp || tagOf(value) === 'BSONRegExp',
  javascript: (value) => tagOf(value) === 'Code',
  int: isInt32,
  timestamp: (value) => tagOf(value) === 'Timestamp',
  long: (value) => (typeof value === 'number' && Number.isInteger(value)) || tagOf(value) === 'Long',
  decimal: (value) => tagOf(value) === 'Decimal128',
  minKey: (value) => tagOf(value) === 'MinKey',
  maxKey: (value) => tagOf(value) === 'MaxKey',
  number: (value) => typeof value === 'number' || ['Long', 'Int32', 'Double', 'Decimal128'].includes(tagOf(value) ?? ''),
};

const NUMBERS: Record<number, string> = {
  1: 'double',
  2: 'string',
  3: 'object',
  4: 'array',
  5: 'binData',
  6: 'undefined',
  7: 'objectId',
  8: 'bool',
  9: 'date',
  10: 'null',
  11: 'regex',
  13: 'javascript',
  16: 'int',
  17: 'timestamp',
  18: 'long',
  19: 'decimal',
  [-1]: 'minKey',
  127: 'maxKey',
};

function testerFor(spec: unknown): (value: unknown) => boolean {
  const names = (Array.isArray(spec) ? spec : [spec]).map((item: unknown) => {
    const name = typeof item === 'number' ? NUMBERS[item] : item;
    if (typeof name !== 'string' || !TESTS[name]) throw new CommandError(2, `Unknown type name alias: ${String(item)}`);
    return name;
  });
  const tests = names.map((name) => TESTS[name] as (value: unknown) => boolean);
  // Like other query operators, a type test also looks at the elements of an array.
  return (value) => tests.some((test) => test(value)) || (Array.isArray(value) && value.some((item) => tests.some((test) => test(item))));
}

/** The mingo query operator implementing `$type`. */
export const typeOperator = (selector: string, value: unknown, _options: unknown): ((doc: Document) => boolean) => {
  const test = testerFor(value);
  return (doc) => test(resolve(doc, selector, { unwrapArray: true }));
};

/**
 * The filter with each query `$type` replaced by ours and `$gte`/`$lte` null made `$eq` null,
 * outside `$expr` (where `$type` is an expression).
 */
export function rewriteTypeOperators<T>(filter: T): T {
  if (Array.isArray(filter)) return filter.map(rewriteTypeOperators) as T;
  if (!isPlainObject(filter)) return filter;
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$expr' || key === '$where') {
      out[key] = value;
      continue;
    }
    const next = rewriteTypeOperators(value);
    if ((key === '$gte' || key === '$lte') && value === null && !('$eq' in filter)) {
      // MongoDB: {$gte: null} and {$lte: null} mean {$eq: null} (which also matches a missing field).
      out.$eq = null;
      changed = true;
    } else if (key === '$type') {
      out[TYPE_OPERATOR] = next;
      changed = true;
    } else {
      out[key] = next;
      if (next !== value) changed = true;
    }
  }
  return (changed ? out : filter) as T;
}
