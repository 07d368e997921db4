import type { BusMessage } from './envelope.js';

/** Where a message came from and which attempt this is. */
export interface MessageContext {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  /** Kafka headers as strings (`traceparent`, ...). */
  headers: Record<string, string>;
  /** 1 on the first try; counts every try, those that met an infrastructure error too. */
  attempt: number;
  groupId: string;
}

export type MessageHandler = (message: BusMessage, context: MessageContext) => Promise<void>;

/** One message of a batch, with where it came from. */
export interface BatchItem {
  message: BusMessage;
  context: MessageContext;
}

/**
 * Handles consecutive messages of one partition at once, oldest first (see ConsumeOptions.handleBatch).
 * Idempotent like a MessageHandler: a batch cut short is handled again, in whole or one message at a time.
 */
export type BatchHandler = (items: BatchItem[]) => Promise<void>;
