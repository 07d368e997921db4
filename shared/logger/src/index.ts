export { createLogger, requestLogger } from './logger.js';
export type { Logger, LoggerOptions, LogLevel } from './logger.js';
export { REDACTED, REDACT_PATHS } from './redaction.js';
