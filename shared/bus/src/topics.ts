/**
 * The topic catalog: every Kafka topic the services use, its partition count and the JSON Schema
 * of its messages' `data`. Producers and consumers validate against it (see envelope.ts).
 *
 * Message value on every topic: `{id, type, occurredAt, data}` (JSON); message key: the aggregate
 * id (run id, sandbox id, automation run id, ...), so one aggregate's messages stay in order on one
 * partition. Schemas marked permissive (`additionalProperties: true`) will be tightened by the
 * issues that fix those shapes.
 */

import { HARNESSES, MAX_MODEL_LENGTH, type Harness, type RunUsage } from '@ars/contract';

/** A JSON Schema object (draft 2020-12 / draft-07 subset understood by ajv 8). */
export type JsonSchema = Readonly<Record<string, unknown>>;

export interface TopicSpec {
  name: string;
  partitions: number;
  description: string;
  /** Allowed envelope `type` values; any non-empty string when absent. */
  types?: readonly string[];
  /** JSON Schema of the envelope's `data`. */
  dataSchema: JsonSchema;
}

const str = { type: 'string', minLength: 1 } as const;
const nullableStr = { type: ['string', 'null'] } as const;
const tokens = { type: 'integer', minimum: 0 } as const;

const runsRequested: TopicSpec = {
  name: 'runs.requested',
  partitions: 12,
  description: 'Runs service: a run was accepted and needs a sandbox (key: runId). Consumed by sandboxes.',
  types: ['run.requested'],
  dataSchema: {
    type: 'object',
    required: ['runId', 'userId', 'repoId', 'harness', 'prompt', 'branch'],
    properties: {
      runId: str,
      userId: str,
      repoId: str,
      harness: { enum: [...HARNESSES] },
      prompt: { type: 'string' },
      branch: {
        type: 'object',
        required: ['base', 'working', 'createBranch'],
        properties: { base: str, working: str, createBranch: { type: 'boolean' } },
        additionalProperties: false,
      },
      rootDirectory: nullableStr,
      /** The harness's model (runs' internal `model`); null or absent: the harness's default. */
      model: { type: ['string', 'null'], maxLength: MAX_MODEL_LENGTH },
      agentId: nullableStr,
      mode: nullableStr,
      /** The harness may run at most this long (ms); runs fails the run a grace period after it. */
      timeoutMs: { type: 'integer', minimum: 1 },
      /** ISO time after which the run must not be started any more (runs has failed it by then). */
      startBy: str,
    },
    additionalProperties: true,
  },
};

/** A run's sandbox as sandboxes reports it: in `runs.sandbox-allocated`, and again in the run's `runs.finished`. */
const allocationProperties = {
  sandboxRecordId: str,
  sandboxId: nullableStr,
  /** The Run's `runtime`: which provider runs it and its id for this run there. */
  runtime: {
    type: 'object',
    required: ['provider', 'runId'],
    properties: { provider: nullableStr, runId: nullableStr },
    additionalProperties: false,
  },
} as const;

const runsSandboxAllocated: TopicSpec = {
  name: 'runs.sandbox-allocated',
  partitions: 12,
  description: 'Sandboxes service: a sandbox was allocated for a run (key: runId). Consumed by runs.',
  types: ['run.sandbox-allocated'],
  dataSchema: {
    type: 'object',
    required: ['runId', 'sandboxRecordId', 'sandboxId', 'runtime'],
    properties: { runId: str, ...allocationProperties },
    additionalProperties: true,
  },
};

const runsSandboxQueued: TopicSpec = {
  name: 'runs.sandbox-queued',
  partitions: 12,
  description:
    "Sandboxes service: a run waits in its queue for capacity, is still waiting (renewed before runs' start deadline), or left the queue (key: runId). Each one restarts the run's start deadline in runs. Consumed by runs.",
  types: ['run.sandbox-queued'],
  dataSchema: {
    type: 'object',
    required: ['runId', 'state', 'reason', 'queuedAt'],
    properties: {
      runId: str,
      /** `queued` (first notice and renewals) or `dequeued` (a sandbox is being allocated now). */
      state: { enum: ['queued', 'dequeued'] },
      /** Why it waits: the instance runs its SANDBOX_MAX_SESSIONS sessions, or the user holds SANDBOX_MAX_LIVE_PER_USER live sandboxes. */
      reason: { enum: ['instance_full', 'user_full', 'workspace_busy'] },
      /** When the request joined the queue (ISO). */
      queuedAt: str,
    },
    additionalProperties: true,
  },
};

const runsAgentEvents: TopicSpec = {
  name: 'runs.agent-events',
  partitions: 12,
  description: 'Sandboxes service: one harness event of a run, in order (key: runId). Consumed by runs.',
  types: ['run.agent-event'],
  dataSchema: {
    type: 'object',
    required: ['runId', 'seq', 'eventType', 'toolName', 'message', 'payload', 'emittedAt'],
    properties: {
      runId: str,
      /** 0, 1, 2 ... per run, in harness order: (runId, seq) identifies an event, so a resend stores nothing twice. */
      seq: { type: 'integer', minimum: 0 },
      eventType: str,
      toolName: nullableStr,
      message: nullableStr,
      fullText: str,
      /** Unsanitized: runs sanitizes before storage. */
      payload: { type: 'object' },
      emittedAt: str,
    },
    additionalProperties: true,
  },
};

const runsFinished: TopicSpec = {
  name: 'runs.finished',
  partitions: 12,
  description: 'Sandboxes service: a run reached a terminal state (key: runId), with its sandbox when it had one. Consumed by runs, automations, pr-review.',
  types: ['run.finished'],
  dataSchema: {
    type: 'object',
    required: ['runId', 'status', 'error'],
    properties: {
      runId: str,
      status: { enum: ['success', 'failed', 'cancelled'] },
      /** Set exactly when status is `failed`: what failed, in words (becomes the Run's `error`). */
      error: nullableStr,
      /** Why it failed: the agent itself, or which part of the machinery. */
      failure: { enum: ['agent', 'harness_crash', 'harness_timeout', 'sandbox_allocation', 'sandbox_lost', 'push', null] },
      /** Events emitted before it (the last seq + 1): runs may check it has them all. */
      eventCount: { type: 'integer', minimum: 0 },
      /** The run's token totals (`RunUsage` of @ars/contract), summed over its harness's usage reports; absent when it reported none. */
      usage: {
        type: 'object',
        required: ['inputTokens', 'cachedInputTokens', 'outputTokens'],
        properties: { inputTokens: tokens, cachedInputTokens: tokens, outputTokens: tokens },
        additionalProperties: false,
      },
      // The allocation again, so the finish alone names the run's sandbox: it may be read before
      // the run's `runs.sandbox-allocated` (another topic), which then changes nothing. Absent when
      // the session had no sandbox, and on messages written before it was sent.
      ...allocationProperties,
    },
    // All three or none: half an allocation names no sandbox.
    dependencies: {
      sandboxRecordId: ['sandboxId', 'runtime'],
      sandboxId: ['sandboxRecordId', 'runtime'],
      runtime: ['sandboxRecordId', 'sandboxId'],
    },
    additionalProperties: true,
  },
};

const sandboxesLifecycle: TopicSpec = {
  name: 'sandboxes.lifecycle',
  partitions: 6,
  description: 'Sandboxes service: lifecycle events of a sandbox (key: sandboxId). Permissive schema for now.',
  dataSchema: {
    type: 'object',
    required: ['sandboxId'],
    properties: { sandboxId: str },
    additionalProperties: true,
  },
};

const automationsDispatch: TopicSpec = {
  name: 'automations.dispatch',
  partitions: 6,
  description: 'Automations engine: durable graph execution steps (key: automation run id). Permissive schema for now.',
  dataSchema: {
    type: 'object',
    required: ['automationRunId'],
    properties: { automationRunId: str },
    additionalProperties: true,
  },
};

const prReviewsRequested: TopicSpec = {
  name: 'pr-reviews.requested',
  partitions: 6,
  description: 'PR review: a review (re)run was requested (key: repoId:prNumber). Permissive schema for now.',
  dataSchema: {
    type: 'object',
    required: ['repoId', 'prNumber'],
    properties: { repoId: str, prNumber: { type: 'integer', minimum: 1 } },
    additionalProperties: true,
  },
};

const busTest: TopicSpec = {
  name: 'bus.test',
  partitions: 4,
  description: "Tests only: any data object. Every `bus.test.<suffix>` topic uses this entry's schema.",
  dataSchema: { type: 'object', additionalProperties: true },
};

/** The domain topics (without their dead-letter topics). */
export const TOPICS = {
  'runs.requested': runsRequested,
  'runs.sandbox-allocated': runsSandboxAllocated,
  'runs.sandbox-queued': runsSandboxQueued,
  'runs.agent-events': runsAgentEvents,
  'runs.finished': runsFinished,
  'sandboxes.lifecycle': sandboxesLifecycle,
  'automations.dispatch': automationsDispatch,
  'pr-reviews.requested': prReviewsRequested,
  'bus.test': busTest,
} as const satisfies Record<string, TopicSpec>;

export type DomainTopicName = keyof typeof TOPICS;
/** Tests use fresh topics `bus.test.<suffix>` (schema of `bus.test`); create them on the broker yourself. */
export type TestTopicName = `bus.test.${string}`;
export type BaseTopicName = DomainTopicName | TestTopicName;
export type DeadLetterTopicName = `${BaseTopicName}.dlq`;
export type TopicName = BaseTopicName | DeadLetterTopicName;

export const DLQ_SUFFIX = '.dlq';
export const DEAD_LETTER_TYPE = 'bus.dead-letter';

/** Partitions of every dead-letter topic: few, it is read by operators, not by hot paths. */
export const DEAD_LETTER_PARTITIONS = 1;

/** The dead-letter topic of `topic`. */
export function deadLetterTopic(topic: BaseTopicName): DeadLetterTopicName {
  return `${topic}${DLQ_SUFFIX}`;
}

/** `data` of a dead-letter message: the original record as it was read, and why it failed. */
export const deadLetterDataSchema: JsonSchema = {
  type: 'object',
  required: ['topic', 'partition', 'offset', 'key', 'value', 'headers', 'error'],
  properties: {
    topic: str,
    partition: { type: 'integer', minimum: 0 },
    offset: str,
    key: nullableStr,
    value: { type: ['string', 'null'], description: 'the original value as UTF-8 text (base64 when valueEncoding is base64)' },
    valueEncoding: { enum: ['utf8', 'base64'] },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
    error: {
      type: 'object',
      required: ['message', 'attempts', 'failedAt', 'consumerGroup'],
      properties: {
        message: { type: 'string' },
        name: { type: 'string' },
        code: { type: 'string' },
        kind: { enum: ['handler', 'malformed'] },
        attempts: { type: 'integer', minimum: 0 },
        failedAt: { type: 'string' },
        consumerGroup: str,
      },
      additionalProperties: true,
    },
  },
  additionalProperties: false,
};

/** `data` of `runs.requested` (the schema allows more fields). */
export interface RunRequestedData {
  runId: string;
  userId: string;
  repoId: string;
  harness: Harness;
  prompt: string;
  branch: { base: string; working: string; createBranch: boolean };
  rootDirectory?: string | null;
  model?: string | null;
  agentId?: string | null;
  mode?: string | null;
  /** `POST /runs` `conversationId`: the run continues the conversation's harness thread. */
  conversationId?: string | null;
  /** `POST /runs` `workspaceSessionId`: the run uses the workspace session's sandbox. */
  workspaceSessionId?: string | null;
  timeoutMs?: number;
  startBy?: string;
  [field: string]: unknown;
}

/** A run's sandbox: its record, the provider's sandbox and the Run's `runtime`. */
export interface RunAllocation {
  sandboxRecordId: string;
  sandboxId: string | null;
  runtime: { provider: string | null; runId: string | null };
}

/** `data` of `runs.sandbox-allocated`. */
export interface RunSandboxAllocatedData extends RunAllocation {
  runId: string;
  [field: string]: unknown;
}

/** `data` of `runs.sandbox-queued`. */
export interface RunSandboxQueuedData {
  runId: string;
  state: 'queued' | 'dequeued';
  /** Why it waits: the instance's sessions are all taken, its user holds every live slot, or its workspace session's sandbox is held (its previous run ends, or another instance hands it over). */
  reason: 'instance_full' | 'user_full' | 'workspace_busy';
  queuedAt: string;
  [field: string]: unknown;
}

/** `data` of `runs.agent-events`. */
export interface RunAgentEventData {
  runId: string;
  seq: number;
  eventType: string;
  toolName: string | null;
  message: string | null;
  /**
   * An agent message longer than an event's 2,000 characters, whole (sanitized, at most
   * AGENT_MESSAGE_FULL_TEXT_CAP): not part of the public event; runs keeps it as the run's last
   * message, which is what an automation's agent node (a review's findings) reads.
   */
  fullText?: string;
  payload: Record<string, unknown>;
  emittedAt: string;
  [field: string]: unknown;
}

/** The most of one agent message kept whole (a review's findings block with a hundred findings fits). */
export const AGENT_MESSAGE_FULL_TEXT_CAP = 100_000;

export type RunFailureKind = 'agent' | 'harness_crash' | 'harness_timeout' | 'sandbox_allocation' | 'sandbox_lost' | 'push';

/** `data` of `runs.finished`. */
export interface RunFinishedData {
  runId: string;
  status: 'success' | 'failed' | 'cancelled';
  error: string | null;
  failure?: RunFailureKind | null;
  eventCount?: number;
  usage?: RunUsage;
  /** The run's allocation (all three or none): set when its session had a sandbox. */
  sandboxRecordId?: RunAllocation['sandboxRecordId'];
  sandboxId?: RunAllocation['sandboxId'];
  runtime?: RunAllocation['runtime'];
  [field: string]: unknown;
}

/** `data` of every `<topic>.dlq`. */
export interface DeadLetterData {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  value: string | null;
  valueEncoding?: 'utf8' | 'base64';
  headers: Record<string, string>;
  error: {
    message: string;
    name?: string;
    code?: string;
    kind?: 'handler' | 'malformed';
    attempts: number;
    failedAt: string;
    consumerGroup: string;
    [field: string]: unknown;
  };
}

/** The TypeScript shape of each domain topic's `data` (the JSON Schema above is authoritative). */
export interface TopicDataMap {
  'runs.requested': RunRequestedData;
  'runs.sandbox-allocated': RunSandboxAllocatedData;
  'runs.sandbox-queued': RunSandboxQueuedData;
  'runs.agent-events': RunAgentEventData;
  'runs.finished': RunFinishedData;
  'sandboxes.lifecycle': { sandboxId: string; [field: string]: unknown };
  'automations.dispatch': { automationRunId: string; [field: string]: unknown };
  'pr-reviews.requested': { repoId: string; prNumber: number; [field: string]: unknown };
  'bus.test': Record<string, unknown>;
}

/** `data` of topic `T`: its TopicDataMap entry, DeadLetterData for `.dlq`, any object for `bus.test.*`. */
export type TopicData<T extends string> = T extends `${string}.dlq` ? DeadLetterData : T extends keyof TopicDataMap ? TopicDataMap[T] : Record<string, unknown>;

/** The catalog entry for any topic name the bus accepts, or undefined for an unknown topic. */
export function topicSpec(name: string): TopicSpec | undefined {
  if (name.endsWith(DLQ_SUFFIX)) {
    const base = topicSpec(name.slice(0, -DLQ_SUFFIX.length));
    if (!base || base.name.endsWith(DLQ_SUFFIX)) return undefined;
    return {
      name,
      partitions: DEAD_LETTER_PARTITIONS,
      description: `Dead letters of ${base.name}: messages that failed their handler after the bounded retries, or were malformed.`,
      types: [DEAD_LETTER_TYPE],
      dataSchema: deadLetterDataSchema,
    };
  }
  if (Object.hasOwn(TOPICS, name)) return TOPICS[name as DomainTopicName];
  if (name.startsWith('bus.test.') && name.length > 'bus.test.'.length) return { ...busTest, name };
  return undefined;
}

/** True when the bus accepts this topic name (catalog, `bus.test.*`, or a dead-letter topic of those). */
export function isTopicName(name: string): name is TopicName {
  return topicSpec(name) !== undefined;
}

/**
 * Every catalog topic and its dead-letter topic with partition counts: what a broker must have
 * (the local mock pre-creates exactly this; in production the operator provisions it).
 */
export function topicProvisioning(): { name: string; partitions: number }[] {
  const list: { name: string; partitions: number }[] = [];
  for (const spec of Object.values(TOPICS) as TopicSpec[]) {
    list.push({ name: spec.name, partitions: spec.partitions });
    list.push({ name: `${spec.name}${DLQ_SUFFIX}`, partitions: DEAD_LETTER_PARTITIONS });
  }
  return list;
}
