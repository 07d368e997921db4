// Value helpers shared by the storage engine: a canonical string key for any BSON value (used for
// the `_id` map and index entries), dotted-path reads that fan out over arrays as MongoDB indexes
// do, and a cheap deep copy that keeps BSON value objects (ObjectId, Long, Binary...) as they are.
import type { Document } from 'bson';

export type Doc = Document;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function bsonTypeOf(value: object): string | undefined {
  const tag = (value as { _bsontype?: unknown })._bsontype;
  return typeof tag === 'string' ? tag : undefined;
}

/**
 * A string equal for two values exactly when MongoDB's index would treat them as the same key
 * (numbers compare by value across int/double; a missing field and null are the same key).
 */
export function valueKey(value: unknown): string {
  if (value === undefined || value === null) return 'N';
  switch (typeof value) {
    case 'number':
      return `n${Object.is(value, -0) ? 0 : value}`;
    case 'bigint':
      return `n${value.toString()}`;
    case 'string':
      return `s${JSON.stringify(value)}`;
    case 'boolean':
      return value ? 'T' : 'F';
    default:
      break;
  }
  if (value instanceof Date) return `d${value.getTime()}`;
  if (Array.isArray(value)) return `[${value.map(valueKey).join(',')}]`;
  if (value instanceof RegExp) return `r${value.source}/${value.flags}`;
  if (typeof value === 'object') {
    const tag = bsonTypeOf(value);
    if (tag === 'ObjectId' || tag === 'ObjectID') return `o${(value as { toHexString(): string }).toHexString()}`;
    if (tag === 'Long' || tag === 'Int32' || tag === 'Double') return `n${String(value)}`;
    if (tag === 'Binary') {
      const binary = value as { sub_type: number; buffer: Uint8Array };
      return `x${binary.sub_type}:${Buffer.from(binary.buffer).toString('base64')}`;
    }
    if (tag !== undefined) return `${tag}:${JSON.stringify(value)}`;
    if (isPlainObject(value)) {
      return `{${Object.entries(value)
        .map(([k, v]) => `${JSON.stringify(k)}:${valueKey(v)}`)
        .join(',')}}`;
    }
  }
  return `?${String(value)}`;
}

/** Values at a dotted path, fanning out over arrays; `[undefined]` when the path is missing. */
export function valuesAtPath(doc: unknown, path: string): unknown[] {
  const out: unknown[] = [];
  collect(doc, path.split('.'), 0, out);
  return out.length === 0 ? [undefined] : out;
}

function collect(value: unknown, parts: string[], index: number, out: unknown[]): void {
  if (index === parts.length) {
    if (Array.isArray(value)) {
      if (value.length === 0) out.push(undefined);
      else for (const item of value) out.push(item);
    } else {
      out.push(value);
    }
    return;
  }
  const part = parts[index] as string;
  if (Array.isArray(value)) {
    if (/^\d+$/.test(part)) {
      collect(value[Number(part)], parts, index + 1, out);
      return;
    }
    for (const item of value) if (item !== null && typeof item === 'object' && !Array.isArray(item)) collect(item, parts, index, out);
    return;
  }
  if (value !== null && typeof value === 'object' && isPlainObject(value)) {
    if (part in value) collect(value[part], parts, index + 1, out);
  }
}

/** The value at a dotted path without array fan-out (for upsert seeds and TTL). */
export function valueAtPath(doc: unknown, path: string): unknown {
  let value: unknown = doc;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

export function setAtPath(doc: Doc, path: string, value: unknown): void {
  const parts = path.split('.');
  let target: Record<string, unknown> = doc;
  for (const part of parts.slice(0, -1)) {
    const next = target[part];
    if (next === null || typeof next !== 'object') target[part] = {};
    target = target[part] as Record<string, unknown>;
  }
  target[parts[parts.length - 1] as string] = value;
}

/** Deep copy of the document structure; BSON value objects are shared (they are never mutated here). */
export function cloneDoc<T>(value: T): T {
  if (Array.isArray(value)) return value.map(cloneDoc) as T;
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) out[key] = cloneDoc(value[key]);
    return out as T;
  }
  return value;
}

export function sameValue(a: unknown, b: unknown): boolean {
  return valueKey(a) === valueKey(b) && typeKey(a) === typeKey(b);
}

function typeKey(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(typeKey).join(',')}]`;
  if (isPlainObject(value)) return `{${Object.values(value).map(typeKey).join(',')}}`;
  if (value === null) return 'null';
  return typeof value;
}

export { isPlainObject };
