// Event payloads go to Kafka unsanitized (runs sanitizes them: strings to 2,000 characters). A
// tool's output can be megabytes, past a Kafka message's size limit, so only payloads that large
// are bounded here: their long strings are cut well above what runs keeps.

export const MAX_PAYLOAD_BYTES = 256 * 1024;
export const LONG_STRING = 16 * 1024;

/** The payload itself when it is small enough; else a copy with every string over LONG_STRING cut, marked. */
export function boundedPayload(payload: Record<string, unknown>): Record<string, unknown> {
  if (Buffer.byteLength(JSON.stringify(payload), 'utf8') <= MAX_PAYLOAD_BYTES) return payload;
  return cut(payload, 0) as Record<string, unknown>;
}

function cut(value: unknown, depth: number): unknown {
  if (typeof value === 'string') {
    return value.length > LONG_STRING ? `${value.slice(0, LONG_STRING)}… [${value.length - LONG_STRING} more characters cut by the sandbox]` : value;
  }
  if (depth > 20 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.slice(0, 1000).map((item) => cut(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, cut(item, depth + 1)]));
}
