/** What a redacted value is replaced with. */
export const REDACTED = '[REDACTED]';

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
  ...SECRET_HEADERS.flatMap((header) => [
    headerPath('headers', header),
    headerPath('*.headers', header),
    headerPath('*.*.headers', header),
  ]),
  'config.env',
  'config.http_headers',
  '*.config.env',
  '*.config.http_headers',
  'env',
  '*.env',
  'http_headers',
  '*.http_headers',
];
