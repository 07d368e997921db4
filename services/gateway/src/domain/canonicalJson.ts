import { createHash } from 'node:crypto';

/**
 * JSON with object keys in code-unit order and no whitespace (RFC 8785 for the values JSON.parse
 * yields: ECMAScript number and string serialisation are what RFC 8785 prescribes).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** DESIGN.md, Decisions: the idempotency body hash is the SHA-256 of the canonical JSON of the body. */
export function bodyHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex');
}
