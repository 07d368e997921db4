export { createBus } from './bus.js';
export type { Bus, BusOptions } from './bus.js';
export { isInfrastructureError, NonRetryableError, TransientError } from './infrastructureErrors.js';
export type { BusConsumer, ConsumeOptions } from './consumer.js';
export { groupTimings } from './groupTimings.js';
export type { GroupTimings } from './groupTimings.js';
export type { BatchHandler, BatchItem, MessageContext, MessageHandler } from './handlers.js';
export { buildEnvelope, decodeMessage, validateMessage, describeProblems } from './envelope.js';
export type { BusMessage, OutgoingMessage, ValidationProblem, DecodeResult } from './envelope.js';
export { silentLogger } from './logger.js';
export type { BusLogger } from './logger.js';
export { OUTBOX_FIELD, outboxEntries, outboxInsert, outboxPush, withOutbox } from './outbox.js';
export type { OutboxEntry, OutboxMessage, WithOutbox } from './outbox.js';
export { startOutboxRelay } from './outboxRelay.js';
export type { OutboxPublisher, OutboxRelay, OutboxRelayOptions } from './outboxRelay.js';
export { memoryProcessedStore, mongoProcessedStore } from './processed.js';
export type { MongoProcessedMessageStore, MongoProcessedStoreOptions, ProcessedInfo, ProcessedMessageDocument, ProcessedMessageStore } from './processed.js';
export {
  TOPICS,
  AGENT_MESSAGE_FULL_TEXT_CAP,
  DLQ_SUFFIX,
  DEAD_LETTER_TYPE,
  DEAD_LETTER_PARTITIONS,
  deadLetterDataSchema,
  deadLetterTopic,
  isTopicName,
  topicProvisioning,
  topicSpec,
} from './topics.js';
export type {
  BaseTopicName,
  DeadLetterData,
  DeadLetterTopicName,
  DomainTopicName,
  JsonSchema,
  RunAgentEventData,
  RunAllocation,
  RunFailureKind,
  RunFinishedData,
  RunRequestedData,
  RunSandboxAllocatedData,
  RunSandboxQueuedData,
  TestTopicName,
  TopicData,
  TopicDataMap,
  TopicName,
  TopicSpec,
} from './topics.js';
export { traceContext, traceHeaders } from './tracing.js';
export { originalValue, redriveDeadLetters, redriveGroupId } from './redrive.js';
export type { RedriveLine, RedriveOptions, RedriveSummary } from './redrive.js';
