export { MAX_IDEMPOTENCY_KEY_LENGTH, idempotencyKeyProblem, requestHash } from './idempotency.js';
