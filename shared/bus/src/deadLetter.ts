import type { KafkaMessage } from 'kafkajs';
import type { OutgoingMessage } from './envelope.js';
import { headersOf, keyOf } from './kafkaRecord.js';
import { DEAD_LETTER_TYPE, type BaseTopicName } from './topics.js';

/** Why a record goes to the dead-letter topic. */
export interface DeadLetterError {
  message: string;
  name?: string;
  code?: string;
  kind: 'handler' | 'malformed';
  /** Tries of the handler (0: malformed, never handled). */
  attempts: number;
}

/**
 * The dead-letter message of a record (`deadLetterDataSchema`): the original record whole — its
 * value as UTF-8 when that is lossless, else base64 — with its error, the group and the time.
 * Keyed like the record (or by its position when it had no key).
 */
export function deadLetterMessage(input: {
  groupId: string;
  topic: BaseTopicName;
  partition: number;
  record: KafkaMessage;
  error: DeadLetterError;
  id: string;
  failedAt: Date;
}): OutgoingMessage {
  const { record, topic, partition } = input;
  const value = record.value;
  const utf8 = value === null ? null : value.toString('utf8');
  const lossless = utf8 !== null && value !== null && Buffer.from(utf8, 'utf8').equals(value);
  const data = {
    topic,
    partition,
    offset: record.offset,
    key: keyOf(record),
    value: value === null ? null : lossless ? utf8 : value.toString('base64'),
    valueEncoding: lossless || value === null ? 'utf8' : 'base64',
    headers: headersOf(record.headers),
    error: { ...input.error, failedAt: input.failedAt.toISOString(), consumerGroup: input.groupId },
  };
  return { key: data.key ?? `${topic}:${partition}:${record.offset}`, type: DEAD_LETTER_TYPE, id: input.id, data };
}
