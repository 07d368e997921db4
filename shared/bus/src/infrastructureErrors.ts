/**
 * Which handler errors say "the infrastructure is away, not this message is bad". The consumer
 * retries those for as long as they last and never dead-letters a message for them; any other
 * error is the message's own (bounded retries, then the dead-letter topic).
 *
 * The rules look at names, codes and labels rather than `instanceof`, so an error from another copy
 * of a driver (a workspace may hold several) is classified the same.
 */

/** Thrown by a handler to say its failure is transient (retry it for as long as it lasts, never dead-letter). */
export class TransientError extends Error {
  readonly transient = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TransientError';
  }
}

/** Thrown by a handler to skip the remaining attempts and dead-letter the message now (poison). */
export class NonRetryableError extends Error {
  readonly retryable = false;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'NonRetryableError';
  }
}

/** True for a NonRetryableError (or any error carrying `retryable: false`). */
export function isNonRetryable(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { retryable?: unknown }).retryable === false;
}

/** MongoDB driver errors meaning the server cannot be reached or is not usable right now. */
const MONGO_ERROR_NAMES = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'MongoServerClosedError',
  'MongoPoolClearedError',
  'MongoWaitQueueTimeoutError',
  'MongoOperationTimeoutError',
  'MongoStalePrimaryError',
  'MongoClientClosedError',
]);

/** Labels the MongoDB driver puts on errors an operation may simply be retried after. */
const MONGO_RETRY_LABELS = ['RetryableWriteError', 'TransientTransactionError', 'ResetPool', 'PoolRequestedRetry'];

/** Server codes of "not primary / shutting down / unreachable" (the driver's retryable read/write codes). */
const MONGO_RETRYABLE_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  89, // NetworkTimeout
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  262, // ExceededTimeLimit
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
  10058, // LegacyNotPrimary
]);

/** kafkajs errors of a broker that cannot be reached or answered too late. */
const KAFKA_ERROR_NAMES = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSNumberOfRetriesExceeded',
  'KafkaJSBrokerNotFound',
  'KafkaJSMetadataNotLoaded',
  'KafkaJSTimeout',
  'KafkaJSLockTimeout',
  'KafkaJSNoBrokerAvailableError',
  'KafkaJSGroupCoordinatorNotFound',
]);

/** Node and undici codes of a connection refused, reset or timed out. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

type Fields = { name?: unknown; code?: unknown; errorLabels?: unknown; retriable?: unknown; transient?: unknown; details?: unknown; cause?: unknown };

function hasMongoRetryLabel(error: Fields & { hasErrorLabel?: unknown }): boolean {
  const labels = Array.isArray(error.errorLabels) ? (error.errorLabels as unknown[]) : [];
  if (labels.some((label) => MONGO_RETRY_LABELS.includes(String(label)))) return true;
  const hasLabel = error.hasErrorLabel;
  return typeof hasLabel === 'function' && MONGO_RETRY_LABELS.some((label) => hasLabel.call(error, label) === true);
}

/** One error (not its causes): does it, by itself, say the infrastructure is away? */
function saysInfrastructure(error: Fields): boolean {
  const name = typeof error.name === 'string' ? error.name : '';
  // A handler's own mark.
  if (error.transient === true) return true;
  // MongoDB: unreachable, no primary, pool cleared, a retryable label or server code.
  if (MONGO_ERROR_NAMES.has(name)) return true;
  if (name.startsWith('Mongo') && hasMongoRetryLabel(error as Fields & { hasErrorLabel?: unknown })) return true;
  if (name.startsWith('Mongo') && typeof error.code === 'number' && MONGO_RETRYABLE_CODES.has(error.code)) return true;
  // Kafka: a broker away, or an error kafkajs itself calls retriable.
  if (KAFKA_ERROR_NAMES.has(name)) return true;
  if (name.startsWith('KafkaJS') && error.retriable === true) return true;
  // Our AppError: SERVICE_UNAVAILABLE (a publish that failed, a peer down or too slow), or a peer's 5xx answer.
  if (name === 'AppError' && error.code === 'SERVICE_UNAVAILABLE') return true;
  if (name === 'AppError' && isPeerServerError(error.details)) return true;
  // Sockets and deadlines.
  if (typeof error.code === 'string' && NETWORK_CODES.has(error.code)) return true;
  if (name === 'TimeoutError') return true;
  return false;
}

/** `details` of an AppError made by @ars/http-client from a peer's HTTP 5xx answer. */
function isPeerServerError(details: unknown): boolean {
  if (typeof details !== 'object' || details === null) return false;
  const { peer, status } = details as { peer?: unknown; status?: unknown };
  return typeof peer === 'string' && typeof status === 'number' && status >= 500;
}

/**
 * True when `error` (or an error it wraps through `cause`) says the infrastructure is away:
 * MongoDB unreachable or without a primary, a Kafka broker unreachable, an internal HTTP call that
 * could not connect, timed out or got a 5xx, a socket error, a timeout, or a `TransientError`.
 * A `NonRetryableError` anywhere on the way down wins: the handler said this message is poison.
 */
export function isInfrastructureError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === 'object' && current !== null; depth++) {
    if (isNonRetryable(current)) return false;
    if (saysInfrastructure(current as Fields)) return true;
    current = (current as Fields).cause;
  }
  return false;
}
