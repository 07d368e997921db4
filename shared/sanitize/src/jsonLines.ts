// Redaction of JSON documents that must stay the documents they were: a CLI's transcript (JSONL)
// carried to the next sandbox is read back by the CLI itself. Text rules applied to a JSON line can
// end a match inside its syntax (`"needsAuthMcpServers":[],` lost its `,` to `[REDACTED]`), and a
// line the CLI cannot parse breaks its thread. Here the rules apply to the values only.
import { NO_KNOWN_SECRETS, type KnownSecrets } from './knownSecrets.js';
import { REDACTED } from './patterns.js';
import { redactSecrets } from './redact.js';
import { isSensitiveKey } from './sensitiveNames.js';

export interface RedactJsonOptions {
  knownSecrets?: KnownSecrets;
}

/**
 * The value with every string redacted as text (`redactSecrets`, whole: no cap) and every string
 * under a sensitive key (`isSensitiveKey`, at any depth below it) replaced by `[REDACTED]`; keys
 * that are themselves secrets are redacted too. Its shape is kept: the same arrays, objects,
 * numbers, booleans and nulls where they were, so a reader of the document still reads it.
 */
export function redactJsonValue(value: unknown, options: RedactJsonOptions = {}): unknown {
  return redactValue(value, false, options.knownSecrets ?? NO_KNOWN_SECRETS);
}

function redactValue(value: unknown, underSensitiveKey: boolean, known: KnownSecrets): unknown {
  if (typeof value === 'string') return underSensitiveKey ? REDACTED : redactSecrets(value, { knownSecrets: known });
  if (Array.isArray(value)) return value.map((item) => redactValue(item, underSensitiveKey, known));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    out[redactSecrets(key, { knownSecrets: known })] = redactValue(item, underSensitiveKey || isSensitiveKey(key), known);
  }
  return out;
}

/**
 * JSON Lines redacted line by line: a line that is JSON stays JSON (`redactJsonValue`; unchanged
 * byte for byte when nothing in it was a secret), any other line is redacted as text. Line breaks
 * stay where they were, so a JSONL file keeps its records.
 */
export function redactJsonLines(text: string, options: RedactJsonOptions = {}): string {
  return text
    .split('\n')
    .map((line) => redactJsonLine(line, options))
    .join('\n');
}

function redactJsonLine(line: string, options: RedactJsonOptions): string {
  if (line.trim() === '') return line;
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return redactSecrets(line, { knownSecrets: options.knownSecrets ?? NO_KNOWN_SECRETS });
  }
  const redacted = JSON.stringify(redactJsonValue(parsed, options));
  return redacted === JSON.stringify(parsed) ? line : redacted;
}
