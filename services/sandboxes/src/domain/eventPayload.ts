// A run's events are sanitized here, before they are published: what crosses Kafka (and any
// dead-letter topic) holds no secret this service knows — its provider keys, INTERNAL_TOKEN, the
// run's clone token — nor any the shared sanitizer recognises, and is within the contract's limits
// (CONTRACT.md, Events 4: the same rule runs applies again at ingest, with its own secrets).
import { AGENT_MESSAGE_FULL_TEXT_CAP, type RunAgentEventData } from '@ars/bus';
import { DEFAULT_CAP, sanitizePayload, sanitizeText, type KnownSecrets } from '@ars/sanitize';
import type { HarnessEvent } from '../harness/index.js';

export type SanitizedEvent = Pick<RunAgentEventData, 'eventType' | 'toolName' | 'message' | 'fullText' | 'payload'>;

/**
 * The event within the contract's limits; an agent message longer than them also travels whole
 * (`fullText`, sanitized the same way, at most AGENT_MESSAGE_FULL_TEXT_CAP), since it is the run's last
 * message for automations (a review's findings) and is never shown as an event.
 */
export function sanitizedEvent(event: HarnessEvent, secrets: KnownSecrets): SanitizedEvent {
  const options = { knownSecrets: secrets };
  const long = event.type === 'assistant_message' && event.message !== null && event.message.length > DEFAULT_CAP;
  return {
    eventType: event.type,
    toolName: event.toolName === null ? null : sanitizeText(event.toolName, options),
    message: event.message === null ? null : sanitizeText(event.message, options),
    ...(long && event.message !== null ? { fullText: sanitizeText(event.message, { ...options, cap: AGENT_MESSAGE_FULL_TEXT_CAP }) } : {}),
    payload: sanitizePayload(event.payload, options),
  };
}
