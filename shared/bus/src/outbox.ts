import { randomUUID } from 'node:crypto';
import type { Document, UpdateFilter } from 'mongodb';
import { buildEnvelope, type OutgoingMessage } from './envelope.js';
import type { TopicName } from './topics.js';
import { traceHeaders } from './tracing.js';

/**
 * Transactional outbox without multi-document transactions: the messages a state change causes
 * are written into the changed document itself (field `_outbox`), in the same single-document
 * write, so the change and its messages cannot part. A relay publishes them and `$pull`s them.
 */
export const OUTBOX_FIELD = '_outbox';

/** A message that leaves with a state change. */
export interface OutboxMessage<D = unknown> extends OutgoingMessage<D> {
  topic: TopicName;
}

/** One pending message as stored in a document's `_outbox` array (a validated envelope). */
export interface OutboxEntry {
  id: string;
  topic: TopicName;
  key: string;
  type: string;
  occurredAt: string;
  data: unknown;
  /** Headers to send, including the `traceparent` active when the state change was written. */
  headers: Record<string, string>;
}

/** Documents that may carry pending messages. */
export interface WithOutbox {
  _outbox?: OutboxEntry[];
}

/**
 * Validates messages against the topic catalog now (an invalid message throws before the state
 * change is written) and returns their outbox entries, in order. Ids are fixed here: a relay that
 * republishes after a crash sends the same id again, which the consumers' idempotency absorbs.
 */
export function outboxEntries(messages: OutboxMessage[]): OutboxEntry[] {
  const trace = traceHeaders();
  return messages.map((message) => {
    const envelope = buildEnvelope(message.topic, { ...message, id: message.id ?? randomUUID() });
    return {
      id: envelope.id,
      topic: message.topic,
      key: message.key,
      type: envelope.type,
      occurredAt: envelope.occurredAt,
      data: envelope.data,
      headers: { ...trace, ...message.headers },
    };
  });
}

/** A new document carrying its first messages: `collection.insertOne(outboxInsert(doc, [msg]))`. */
export function outboxInsert<T extends Document>(doc: T, messages: OutboxMessage[]): T & { _outbox: OutboxEntry[] } {
  return { ...doc, [OUTBOX_FIELD]: outboxEntries(messages) } as T & { _outbox: OutboxEntry[] };
}

/**
 * The update fragment appending messages: `updateOne(filter, {$set: {...}, ...outboxPush([msg])})`.
 * When the update already has a `$push`, use `withOutbox(update, messages)`.
 */
export function outboxPush(messages: OutboxMessage[]): { $push: { _outbox: { $each: OutboxEntry[] } } } {
  return { $push: { _outbox: { $each: outboxEntries(messages) } } };
}

/** `update` plus the `$push` of the messages (merged into an existing `$push`). */
export function withOutbox<T extends Document>(update: UpdateFilter<T>, messages: OutboxMessage[]): UpdateFilter<T> {
  const push: Record<string, unknown> = { ...((update as { $push?: Record<string, unknown> }).$push ?? {}) };
  if (OUTBOX_FIELD in push) throw new Error(`withOutbox: the update already pushes to ${OUTBOX_FIELD}`);
  push[OUTBOX_FIELD] = { $each: outboxEntries(messages) };
  return { ...update, $push: push } as UpdateFilter<T>;
}
