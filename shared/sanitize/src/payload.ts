import { NO_KNOWN_SECRETS, type KnownSecrets } from './knownSecrets.js';
import { REDACTED } from './patterns.js';
import { DEFAULT_CAP, sanitizeText } from './redact.js';
import { isSensitiveKey } from './sensitiveNames.js';

/**
 * Structured payloads as they may be stored (CONTRACT.md, Events 4): sensitive keys redacted;
 * strings over 2,000 characters truncated; arrays and objects capped at 25 items, depth 3 and
 * 20 KB of JSON. Secrets inside strings, and a key that is itself a secret, are redacted too.
 */
export const EVENT_LIMITS = {
  maxStringLength: DEFAULT_CAP,
  maxItems: 25,
  maxDepth: 3,
  maxJsonBytes: 20 * 1024,
} as const;

/** The longest key kept. */
const MAX_KEY_LENGTH = 200;

interface Caps {
  maxStringLength: number;
  maxItems: number;
  known: KnownSecrets;
}

function sanitizeValue(value: unknown, depth: number, caps: Caps): unknown {
  if (typeof value === 'string') return sanitizeText(value, { cap: caps.maxStringLength, knownSecrets: caps.known });
  if (value === null || typeof value === 'number' || typeof value === 'boolean') {
    return typeof value === 'number' && !Number.isFinite(value) ? null : value;
  }
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) {
    if (depth >= EVENT_LIMITS.maxDepth) return `[array of ${value.length} items]`;
    const kept = value.length > caps.maxItems ? value.slice(0, caps.maxItems - 1) : value;
    const items = kept.map((item) => sanitizeValue(item, depth + 1, caps));
    if (value.length > caps.maxItems) items.push(`[${value.length - kept.length} more items]`);
    return items;
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined && typeof v !== 'function');
    if (depth >= EVENT_LIMITS.maxDepth) return `[object with ${entries.length} keys]`;
    const kept = entries.length > caps.maxItems ? entries.slice(0, caps.maxItems - 1) : entries;
    const out: Record<string, unknown> = {};
    for (const [key, v] of kept) {
      out[uniqueKey(out, sanitizeText(key, { cap: MAX_KEY_LENGTH, knownSecrets: caps.known }))] = isSensitiveKey(key)
        ? REDACTED
        : sanitizeValue(v, depth + 1, caps);
    }
    if (entries.length > caps.maxItems) out['…'] = `[${entries.length - kept.length} more keys]`;
    return out;
  }
  return undefined; // functions, symbols: not data
}

/** Two keys that were secrets are both `[REDACTED]` once redacted: the second is numbered, not lost. */
function uniqueKey(out: Record<string, unknown>, key: string): string {
  if (!Object.hasOwn(out, key)) return key;
  for (let n = 2; ; n += 1) if (!Object.hasOwn(out, `${key} (${n})`)) return `${key} (${n})`;
}

export interface SanitizePayloadOptions {
  knownSecrets?: KnownSecrets;
}

/**
 * The payload as it may be stored: always an object, within every limit. When the capped payload
 * is still over 20 KB of JSON, strings and then item counts are cut further until it fits.
 */
export function sanitizePayload(payload: unknown, options: SanitizePayloadOptions = {}): Record<string, unknown> {
  const root = payload !== null && typeof payload === 'object' && !Array.isArray(payload) ? payload : { value: payload };
  const known = options.knownSecrets ?? NO_KNOWN_SECRETS;
  const attempts: Omit<Caps, 'known'>[] = [
    { maxStringLength: EVENT_LIMITS.maxStringLength, maxItems: EVENT_LIMITS.maxItems },
    { maxStringLength: 500, maxItems: EVENT_LIMITS.maxItems },
    { maxStringLength: 120, maxItems: EVENT_LIMITS.maxItems },
    { maxStringLength: 120, maxItems: 10 },
    { maxStringLength: 60, maxItems: 5 },
  ];
  for (const caps of attempts) {
    const result = sanitizeValue(root, 0, { ...caps, known }) as Record<string, unknown>;
    if (jsonBytes(result) <= EVENT_LIMITS.maxJsonBytes) return result;
  }
  return { truncated: `payload exceeded ${EVENT_LIMITS.maxJsonBytes} bytes of JSON` };
}

export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}
