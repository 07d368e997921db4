import { createHash } from 'node:crypto';
import canonicalizeModule from 'canonicalize';

type Canonicalize = (input: unknown) => string | undefined;
// The package is CommonJS (`module.exports = fn`) with an ESM-style default in its types.
const canonicalize: Canonicalize = (canonicalizeModule as unknown as { default?: Canonicalize }).default ?? (canonicalizeModule as unknown as Canonicalize);

/** CONTRACT.md, Request conventions: at most 200 characters, case-sensitive, free format. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 200;

/**
 * What an HTTP field value can hold (RFC 9110: tab, visible ASCII, obs-text), and so what a key
 * forwarded to its owner as a header can. A REST caller cannot send anything else; an MCP tool's
 * `idempotencyKey` argument is JSON and can, and a NUL or U+202E there made the forward fail as if
 * the owner were unreachable (issue 32's fuzzer).
 */
const NOT_A_HEADER_CHARACTER = /[^\t\x20-\x7e\x80-\xff]/;

/** Why an `Idempotency-Key` header value is refused (400 BAD_REQUEST), or null. */
export function idempotencyKeyProblem(key: string | undefined): string | null {
  if (key === undefined || key.length === 0) return 'Idempotency-Key header is required';
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) return `Idempotency-Key must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`;
  if (NOT_A_HEADER_CHARACTER.test(key)) return 'Idempotency-Key must be characters an HTTP header can carry: no control characters but tab, none past U+00FF';
  return null;
}

/**
 * The body hash stored with a key (DESIGN.md): SHA-256 of the canonical JSON (RFC 8785), so
 * whitespace and key order do not make two equal bodies conflict.
 */
export function requestHash(body: unknown): string {
  const canonical = canonicalize(body ?? null) ?? 'null';
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}
