export { REDACTED, LONGEST_MATCH, ALL_PATTERNS, unfinishedTokenAt, type SecretPattern } from './patterns.js';
export { isSensitiveKey, isSensitiveName } from './sensitiveNames.js';
export { KnownSecrets, knownSecrets, NO_KNOWN_SECRETS, MIN_SECRET_LENGTH, urlPassword, configSecrets } from './knownSecrets.js';
export { redactSecrets, sanitizeText, truncate, redactionWindow, DEFAULT_CAP, type SanitizeTextOptions } from './redact.js';
export { redactArgv } from './argv.js';
export { sanitizePayload, jsonBytes, EVENT_LIMITS, type SanitizePayloadOptions } from './payload.js';
export { redactJsonValue, redactJsonLines, type RedactJsonOptions } from './jsonLines.js';
