import { isAppError } from '@ars/errors';
import type { Bus, OutgoingMessage, TopicData, TopicName } from '@ars/bus';
import type { Logger } from '@ars/logger';

export class PublishError extends Error {}

/**
 * Publishes one message, retrying (backoff 250 ms doubling to 5 s) until it is sent or `deadlineMs`
 * has passed since the first attempt; then rejects with PublishError. An invalid message (a bug)
 * is not retried.
 */
export async function publishWithRetry<T extends TopicName>(
  bus: Bus,
  topic: T,
  message: OutgoingMessage<TopicData<T>>,
  options: { deadlineMs: number; logger: Logger },
): Promise<void> {
  await publishManyWithRetry(bus, topic, [message], options);
}

/** Like `publishWithRetry` for several messages of one topic, sent in one request, in order. */
export async function publishManyWithRetry<T extends TopicName>(
  bus: Bus,
  topic: T,
  messages: OutgoingMessage<TopicData<T>>[],
  options: { deadlineMs: number; logger: Logger },
): Promise<void> {
  const start = Date.now();
  let wait = 250;
  for (let attempt = 1; ; attempt += 1) {
    try {
      await bus.publishMany(topic, messages);
      return;
    } catch (error) {
      if (isAppError(error) && error.code === 'INTERNAL_ERROR') throw error;
      const text = error instanceof Error ? error.message : String(error);
      if (Date.now() - start + wait > options.deadlineMs) {
        throw new PublishError(`the message bus could not be reached for ${Math.round((Date.now() - start) / 1000)} s (${text})`);
      }
      options.logger.warn({ topic, message_id: messages[0]?.id, messages: messages.length, attempt, err: text }, 'publish failed: retrying');
      await new Promise((resolve) => setTimeout(resolve, wait));
      wait = Math.min(wait * 2, 5_000);
    }
  }
}
