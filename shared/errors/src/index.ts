export { AppError, isAppError, toAppError } from './appError.js';
export { ERROR_CODES, httpStatusOf, codeForHttpStatus } from './codes.js';
export type { ErrorCode } from './codes.js';
export { FAILURE_ENVELOPE_SCHEMA, successEnvelope, failureEnvelope } from './envelopes.js';
export type { SuccessEnvelope, FailureEnvelope, Envelope } from './envelopes.js';
