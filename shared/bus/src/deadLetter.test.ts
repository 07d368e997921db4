import { describe, expect, test } from '@jest/globals';
import type { KafkaMessage } from 'kafkajs';
import { deadLetterMessage } from './deadLetter.js';
import { DEAD_LETTER_TYPE } from './topics.js';
import { buildEnvelope, validateMessage } from './envelope.js';

const record = (value: Buffer | null, key: Buffer | null = Buffer.from('run-1')): KafkaMessage =>
  ({ offset: '7', key, value, headers: { traceparent: Buffer.from('00-abc-def-01') }, timestamp: '0', attributes: 0 }) as KafkaMessage;
const input = {
  groupId: 'runs',
  topic: 'runs.finished' as const,
  partition: 2,
  error: { message: 'boom', name: 'Error', kind: 'handler' as const, attempts: 5 },
  id: 'dl-1',
  failedAt: new Date('2026-11-29T16:00:00.000Z'),
};

describe('a dead letter carries the original record whole, with its error, group and time', () => {
  test('a UTF-8 value as text; key, offset, partition, headers as read; keyed like the record', () => {
    const message = deadLetterMessage({ ...input, record: record(Buffer.from('{"not":"valid"}')) });
    expect(message).toEqual({
      key: 'run-1',
      type: DEAD_LETTER_TYPE,
      id: 'dl-1',
      data: {
        topic: 'runs.finished',
        partition: 2,
        offset: '7',
        key: 'run-1',
        value: '{"not":"valid"}',
        valueEncoding: 'utf8',
        headers: { traceparent: '00-abc-def-01' },
        error: { message: 'boom', name: 'Error', kind: 'handler', attempts: 5, failedAt: '2026-11-29T16:00:00.000Z', consumerGroup: 'runs' },
      },
    });
    // What the bus would send: the catalog's schema of the dead-letter topic accepts it.
    expect(validateMessage('runs.finished.dlq', message.key, buildEnvelope('runs.finished.dlq', message))).toEqual([]);
  });

  test('bytes that are not UTF-8 travel as base64, losslessly; a record without a key is keyed by its position', () => {
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x41]);
    const message = deadLetterMessage({ ...input, record: record(bytes, null) });
    expect(message.key).toBe('runs.finished:2:7');
    expect(message.data).toMatchObject({ key: null, valueEncoding: 'base64', value: bytes.toString('base64') });
    expect(Buffer.from((message.data as { value: string }).value, 'base64').equals(bytes)).toBe(true);
  });

  test('an empty record (null value) stays null', () => {
    expect(deadLetterMessage({ ...input, record: record(null) }).data).toMatchObject({ value: null, valueEncoding: 'utf8' });
  });
});
