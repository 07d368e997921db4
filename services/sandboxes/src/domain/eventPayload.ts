// A run's events are sanitized here, before they are published: what crosses Kafka (and any
// dead-letter topic) holds no secret this service knows — its provider keys, INTERNAL_TOKEN, the
// run's clone token — nor any the shared sanitizer recognises, and is within the contract's limits
// (CONTRACT.md, Events 4: the same rule runs applies again at ingest, with its own secrets).
import type { RunAgentEventData } from '@ars/bus';
import { sanitizePayload, sanitizeText, type KnownSecrets } from '@ars/sanitize';
import type { HarnessEvent } from '../harness/index.js';

export type SanitizedEvent = Pick<RunAgentEventData, 'eventType' | 'toolName' | 'message' | 'payload'>;

export function sanitizedEvent(event: HarnessEvent, secrets: KnownSecrets): SanitizedEvent {
  const options = { knownSecrets: secrets };
  return {
    eventType: event.type,
    toolName: event.toolName === null ? null : sanitizeText(event.toolName, options),
    message: event.message === null ? null : sanitizeText(event.message, options),
    payload: sanitizePayload(event.payload, options),
  };
}
