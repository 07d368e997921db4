import type { IHeaders, KafkaMessage } from 'kafkajs';

/** Kafka headers as strings (the first value of each; Buffers read as UTF-8). */
export function headersOf(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined) continue;
    const first = Array.isArray(value) ? value[0] : value;
    if (first === undefined) continue;
    out[name] = Buffer.isBuffer(first) ? first.toString('utf8') : String(first);
  }
  return out;
}

/** The record's key as UTF-8, or null without one. */
export function keyOf(record: KafkaMessage): string | null {
  return record.key === null || record.key === undefined ? null : record.key.toString('utf8');
}
