import { randomUUID } from 'node:crypto';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { AppError } from '@ars/errors';
import { topicSpec, type TopicSpec } from './topics.js';

/** The value of every message on the bus. */
export interface BusMessage<D = unknown> {
  /** Unique per message; consumers de-duplicate on it. */
  id: string;
  /** What happened, e.g. `run.requested`. */
  type: string;
  /** ISO 8601 timestamp of the state change. */
  occurredAt: string;
  data: D;
}

/** What a producer hands to `publish` (and what the outbox stores). */
export interface OutgoingMessage<D = unknown> {
  /** Partition key: the aggregate id (run id, sandbox id, ...). */
  key: string;
  type: string;
  data: D;
  /** Generated (UUID v4) when absent. Give one to make a retried publish idempotent for consumers. */
  id?: string;
  /** Defaults to now. */
  occurredAt?: string | Date;
  /** Extra Kafka headers (string values). `traceparent`/`tracestate` are set by the bus. */
  headers?: Record<string, string>;
}

/** A validation failure: the JSON pointer of the failing value and what is wrong with it. */
export interface ValidationProblem {
  path: string;
  message: string;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
const validators = new WeakMap<object, ValidateFunction>();

/** One compiled validator per schema object (`bus.test.*` and every `.dlq` share theirs). */
function dataValidator(spec: TopicSpec): ValidateFunction {
  let validate = validators.get(spec.dataSchema);
  if (!validate) {
    validate = ajv.compile(spec.dataSchema);
    validators.set(spec.dataSchema, validate);
  }
  return validate;
}

function problemsOf(errors: ErrorObject[] | null | undefined): ValidationProblem[] {
  return (errors ?? []).map((e) => ({
    path: `/data${e.instancePath}`,
    message:
      e.keyword === 'additionalProperties'
        ? `${e.message ?? 'is invalid'}: ${String((e.params as { additionalProperty?: unknown }).additionalProperty)}`
        : (e.message ?? 'is invalid'),
  }));
}

/**
 * Checks a message against the topic catalog: the key, the envelope (`id`, `type`, `occurredAt`,
 * `data`) and the topic's data schema. Returns the problems; empty means valid.
 */
export function validateMessage(topic: string, key: string | null | undefined, value: unknown): ValidationProblem[] {
  const spec = topicSpec(topic);
  if (!spec) return [{ path: '', message: `unknown topic ${topic} (not in the topic catalog)` }];
  const problems: ValidationProblem[] = [];
  if (typeof key !== 'string' || key.length === 0) problems.push({ path: '(key)', message: 'must be a non-empty string (the aggregate id)' });
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    problems.push({ path: '', message: 'must be an object {id, type, occurredAt, data}' });
    return problems;
  }
  const envelope = value as Record<string, unknown>;
  for (const field of Object.keys(envelope)) {
    if (!['id', 'type', 'occurredAt', 'data'].includes(field)) problems.push({ path: `/${field}`, message: 'is not an envelope field' });
  }
  if (typeof envelope.id !== 'string' || envelope.id.length === 0) problems.push({ path: '/id', message: 'must be a non-empty string' });
  if (typeof envelope.type !== 'string' || envelope.type.length === 0) {
    problems.push({ path: '/type', message: 'must be a non-empty string' });
  } else if (spec.types && !spec.types.includes(envelope.type)) {
    problems.push({ path: '/type', message: `must be one of ${spec.types.join(', ')}` });
  }
  if (typeof envelope.occurredAt !== 'string' || !ISO_DATE.test(envelope.occurredAt) || Number.isNaN(Date.parse(envelope.occurredAt))) {
    problems.push({ path: '/occurredAt', message: 'must be an ISO 8601 date-time string' });
  }
  if (!('data' in envelope)) {
    problems.push({ path: '/data', message: 'is required' });
  } else {
    const validate = dataValidator(spec);
    if (!validate(envelope.data)) problems.push(...problemsOf(validate.errors));
  }
  return problems;
}

/** Describes problems in one line: `/data/runId must be string; /type must be ...`. */
export function describeProblems(problems: ValidationProblem[]): string {
  return problems.map((p) => `${p.path || '(message)'} ${p.message}`).join('; ');
}

/**
 * Builds the envelope of an outgoing message and validates it. An invalid message is a programming
 * error: throws AppError INTERNAL_ERROR naming the topic and the failing paths; nothing is sent.
 */
export function buildEnvelope<D>(topic: string, message: OutgoingMessage<D>): BusMessage<D> {
  const occurredAt = message.occurredAt instanceof Date ? message.occurredAt.toISOString() : (message.occurredAt ?? new Date().toISOString());
  const envelope: BusMessage<D> = { id: message.id ?? randomUUID(), type: message.type, occurredAt, data: message.data };
  const problems = validateMessage(topic, message.key, envelope);
  if (problems.length > 0) {
    throw new AppError('INTERNAL_ERROR', `invalid message for topic ${topic}: ${describeProblems(problems)}`, {
      details: { topic, type: message.type, problems },
    });
  }
  return envelope;
}

/** The outcome of reading a record's value: the message, or why it is malformed. */
export type DecodeResult = { ok: true; message: BusMessage } | { ok: false; reason: string };

/** Parses and validates a record read from `topic`. */
export function decodeMessage(topic: string, key: string | null, value: Buffer | null): DecodeResult {
  if (value === null) return { ok: false, reason: 'malformed message: empty value (tombstone)' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(value.toString('utf8'));
  } catch (error) {
    return { ok: false, reason: `malformed message: value is not JSON (${(error as Error).message})` };
  }
  const problems = validateMessage(topic, key, parsed);
  if (problems.length > 0) return { ok: false, reason: `malformed message: ${describeProblems(problems)}` };
  return { ok: true, message: parsed as BusMessage };
}
