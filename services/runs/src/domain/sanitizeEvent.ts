/**
 * Sanitization of run events before they are stored (CONTRACT.md, Events 4): sensitive keys
 * redacted; strings over 2,000 characters truncated; arrays and objects capped at 25 items, depth 3
 * and 20 KB of JSON. Secret-looking values inside strings (an `env` dump, a token in a command line)
 * are redacted too, so no secret value can be found anywhere in what `GET /events` returns.
 */
export const EVENT_LIMITS = {
  maxStringLength: 2_000,
  maxItems: 25,
  maxDepth: 3,
  maxJsonBytes: 20 * 1024,
} as const;

export const REDACTED = '[REDACTED]';

/**
 * Keys whose values are secret whatever they hold: environment variables, source-host and API
 * tokens, credentials, authorization and cookie headers, the AI billing source (`apiKeySource`).
 * Compared lower-cased without `_`/`-`, so `GITHUB_TOKEN`, `accessToken` and `api-key` all match,
 * while usage counts such as `input_tokens` do not.
 */
const SENSITIVE_KEY_WORDS = ['secret', 'password', 'passwd', 'apikey', 'accesskey', 'privatekey', 'credential', 'authorization', 'cookie', 'billing'];
const SENSITIVE_KEYS = new Set(['env', 'envs', 'environment', 'environmentvariables', 'headers', 'httpheaders', 'auth', 'pat']);

/** Values that are secrets wherever they appear inside a string. */
const SECRET_VALUE_PATTERNS: RegExp[] = [
  /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}\b/g, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{20,}\b/g,
  /\bglpat-[A-Za-z0-9_-]{20,}\b/g, // GitLab
  /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}\b/g, // OpenAI, Anthropic
  /\bxox[abprs]-[A-Za-z0-9-]{10,}\b/g, // Slack
  /\bAKIA[0-9A-Z]{16}\b/g, // AWS access key id
  /\btok_[0-9A-Za-z]{32}\b/g, // this service's own PATs
  /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\b/g, // JWTs
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
];

/** `NAME=value` / `NAME: value` where NAME looks secret: the value goes, the name stays readable. */
const SECRET_ASSIGNMENT =
  /\b([A-Za-z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?|AUTH)[A-Za-z0-9_]*)(\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s"']+)/gi;

/** `Authorization: Bearer x`, `Basic x` anywhere in text. */
const AUTH_SCHEME = /\b(Bearer|Basic|token)\s+[A-Za-z0-9._~+/=-]{8,}/g;

export interface SanitizeOptions {
  /** Exact secret values known to the caller (the keys injected into a sandbox): always redacted. */
  knownSecrets?: readonly string[];
}

/** Redacts secret values inside free text. */
export function redactSecretsInText(text: string, options: SanitizeOptions = {}): string {
  let out = text;
  for (const secret of options.knownSecrets ?? []) {
    if (secret.length >= 6) out = out.split(secret).join(REDACTED);
  }
  for (const pattern of SECRET_VALUE_PATTERNS) out = out.replace(pattern, REDACTED);
  // Schemes first: `Authorization: Bearer x` must lose x, not just the word Bearer.
  out = out.replace(AUTH_SCHEME, (_match, scheme: string) => `${scheme} ${REDACTED}`);
  out = out.replace(SECRET_ASSIGNMENT, (_match, name: string, separator: string) => `${name}${separator}${REDACTED}`);
  return out;
}

export function isSensitiveKey(key: string): boolean {
  const normalized = key.toLowerCase().replace(/[_-]/g, '');
  return normalized.endsWith('token') || SENSITIVE_KEYS.has(normalized) || SENSITIVE_KEY_WORDS.some((word) => normalized.includes(word));
}

interface Caps {
  maxStringLength: number;
  maxItems: number;
}

function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = `…[truncated ${text.length - max} chars]`;
  return text.slice(0, Math.max(0, max - marker.length)) + marker;
}

function sanitizeString(text: string, caps: Caps, options: SanitizeOptions): string {
  return truncate(redactSecretsInText(text, options), caps.maxStringLength);
}

function sanitizeValue(value: unknown, depth: number, caps: Caps, options: SanitizeOptions): unknown {
  if (typeof value === 'string') return sanitizeString(value, caps, options);
  if (value === null || typeof value === 'number' || typeof value === 'boolean') {
    return typeof value === 'number' && !Number.isFinite(value) ? null : value;
  }
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) {
    if (depth >= EVENT_LIMITS.maxDepth) return `[array of ${value.length} items]`;
    const kept = value.length > caps.maxItems ? value.slice(0, caps.maxItems - 1) : value;
    const items = kept.map((item) => sanitizeValue(item, depth + 1, caps, options));
    if (value.length > caps.maxItems) items.push(`[${value.length - kept.length} more items]`);
    return items;
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined && typeof v !== 'function');
    if (depth >= EVENT_LIMITS.maxDepth) return `[object with ${entries.length} keys]`;
    const kept = entries.length > caps.maxItems ? entries.slice(0, caps.maxItems - 1) : entries;
    const out: Record<string, unknown> = {};
    for (const [key, v] of kept) {
      const safeKey = truncate(key, 200);
      out[safeKey] = isSensitiveKey(key) ? REDACTED : sanitizeValue(v, depth + 1, caps, options);
    }
    if (entries.length > caps.maxItems) out['…'] = `[${entries.length - kept.length} more keys]`;
    return out;
  }
  return undefined; // functions, symbols: not data
}

/**
 * The payload as it may be stored: always an object, within every limit. When the capped payload
 * is still over 20 KB of JSON, strings and then item counts are cut further until it fits.
 */
export function sanitizePayload(payload: unknown, options: SanitizeOptions = {}): Record<string, unknown> {
  const root = payload !== null && typeof payload === 'object' && !Array.isArray(payload) ? payload : { value: payload };
  const attempts: Caps[] = [
    { maxStringLength: EVENT_LIMITS.maxStringLength, maxItems: EVENT_LIMITS.maxItems },
    { maxStringLength: 500, maxItems: EVENT_LIMITS.maxItems },
    { maxStringLength: 120, maxItems: EVENT_LIMITS.maxItems },
    { maxStringLength: 120, maxItems: 10 },
    { maxStringLength: 60, maxItems: 5 },
  ];
  for (const caps of attempts) {
    const result = sanitizeValue(root, 0, caps, options) as Record<string, unknown>;
    if (jsonBytes(result) <= EVENT_LIMITS.maxJsonBytes) return result;
  }
  return { truncated: `payload exceeded ${EVENT_LIMITS.maxJsonBytes} bytes of JSON` };
}

/** A run event's free-text fields (message, toolName): secrets redacted, 2,000 characters at most. */
export function sanitizeText(text: string | null | undefined, options: SanitizeOptions = {}): string | null {
  if (text === null || text === undefined) return null;
  return sanitizeString(text, { maxStringLength: EVENT_LIMITS.maxStringLength, maxItems: EVENT_LIMITS.maxItems }, options);
}

export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}
