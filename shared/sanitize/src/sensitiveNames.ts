/**
 * Whether a name says its value is secret. One rule for names in text (`NAME=value`) and object
 * keys: lower-cased without separators, it ends in `token` (not `input_tokens`) or holds one of the
 * words below; or one of its words is `auth` or `pat` (`NPM_AUTH`, `basicAuth`, `GITHUB_PAT`, but
 * not `author` or `path`).
 */
const SENSITIVE_PARTS = ['secret', 'password', 'passwd', 'apikey', 'accesskey', 'privatekey', 'credential', 'authorization', 'cookie', 'billing'];
const SENSITIVE_WORDS = new Set(['auth', 'pat']);

/** Keys of whole maps of secrets (an environment, HTTP headers): only as object keys, whose value is the map. */
const SENSITIVE_MAP_KEYS = new Set(['env', 'envs', 'environment', 'environmentvariables', 'headers', 'httpheaders']);

const normalized = (name: string): string => name.toLowerCase().replace(/[\s_.-]/g, '');

export function isSensitiveName(name: string): boolean {
  const flat = normalized(name);
  if (flat.endsWith('token') || SENSITIVE_PARTS.some((part) => flat.includes(part))) return true;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[\s_.:-]+/);
  return words.some((word) => SENSITIVE_WORDS.has(word));
}

/** An object key whose value is redacted whole: a sensitive name, or an environment or headers map. */
export function isSensitiveKey(key: string): boolean {
  return isSensitiveName(key) || SENSITIVE_MAP_KEYS.has(normalized(key));
}
