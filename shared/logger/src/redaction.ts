import { stdSerializers } from 'pino';
import { REDACTED, sanitizeText } from '@ars/sanitize';

/** What a redacted value is replaced with. */
export { REDACTED };

/** Keys whose value is a secret wherever they appear (top level and two levels down). */
const SECRET_KEYS = [
  'token',
  'password',
  'secret',
  'apiKey',
  'api_key',
  'accessToken',
  'access_token',
  'refreshToken',
  'refresh_token',
  'clientSecret',
  'client_secret',
  'privateKey',
  'private_key',
  'internalToken',
  'authorization',
  'cookie',
];

/** Header names that carry credentials. */
const SECRET_HEADERS = ['authorization', 'cookie', '["set-cookie"]', '["x-internal-token"]', '["proxy-authorization"]'];

function headerPath(prefix: string, header: string): string {
  return header.startsWith('[') ? `${prefix}${header}` : `${prefix}.${header}`;
}

/**
 * Paths redacted from every log line. pino's path syntax: `*` matches one level; bracket notation for
 * keys that are not identifiers. External tool server configs (`config.env`, `config.http_headers`)
 * carry vault-resolved secrets and are redacted whole.
 */
export const REDACT_PATHS: readonly string[] = [
  ...SECRET_KEYS.flatMap((key) => [key, `*.${key}`, `*.*.${key}`]),
  ...SECRET_HEADERS.flatMap((header) => [headerPath('headers', header), headerPath('*.headers', header), headerPath('*.*.headers', header)]),
  'config.env',
  'config.http_headers',
  '*.config.env',
  '*.config.http_headers',
  'env',
  '*.env',
  'http_headers',
  '*.http_headers',
];

/** A log line's strings are cut here: enough for a stack trace, bounded so a line's cost is too. */
const LOG_STRING_CAP = 16 * 1024;

/** A message or field with the secrets @ars/sanitize recognises redacted (a token in an error text, a URL's password). */
export function sanitizeLogText(value: unknown): unknown {
  return typeof value === 'string' ? sanitizeText(value, { cap: LOG_STRING_CAP }) : value;
}

/**
 * The line's top-level fields made safe (a copy only when one changed: the caller's object is never
 * modified): strings sanitized; errors under any key serialized like `err`. An error left as it is
 * may be a DOMException (an abort's reason), whose getters throw when the path redaction copies it
 * as a plain object, failing the request that logged it.
 */
export function sanitizeLogFields(fields: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | null = null;
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    let clean: unknown = value;
    if (typeof value === 'string') clean = sanitizeLogText(value);
    else if (!ERROR_KEYS.has(key) && isErrorLike(value)) clean = serializeError(value);
    if (clean !== value) (out ??= { ...fields })[key] = clean;
  }
  return out ?? fields;
}

const serializeError = sanitizeErr(stdSerializers.err);
/** Keys whose own serializer (the logger's `serializers`) turns an error into data after this. */
const ERROR_KEYS = new Set(['err', 'error']);

/**
 * pino's own test of an error (a string `message`), which also holds for errors of another realm
 * and for DOMException, neither of which `instanceof Error` recognises everywhere.
 */
function isErrorLike(value: unknown): value is Error {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { message?: unknown }).message === 'string' &&
    typeof (value as { stack?: unknown }).stack === 'string'
  );
}

/** An error serializer whose `message` and `stack` are sanitized. */
export function sanitizeErr(serialize: (error: Error) => unknown): (error: unknown) => unknown {
  return (error) => {
    const serialized = isErrorLike(error) ? serialize(error) : error;
    if (serialized === null || typeof serialized !== 'object') return sanitizeLogText(serialized);
    const record = serialized as Record<string, unknown>;
    return { ...record, message: sanitizeLogText(record.message), stack: sanitizeLogText(record.stack) };
  };
}
