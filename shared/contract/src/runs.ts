import type { FromSchema } from 'json-schema-to-ts';

/** The harnesses a run can use (CONTRACT.md, POST /runs, `harness`). */
export const HARNESSES = ['codex', 'claude-code'] as const;
export type Harness = (typeof HARNESSES)[number];

/** CONTRACT.md, Limits: 100,000 characters, counted as code points (`tooManyCharacters` of @ars/http-app). */
export const MAX_PROMPT_LENGTH = 100_000;

/** The longest `repoId` accepted (not a contract limit: a bound on what reaches the catalog). */
export const MAX_REPO_ID_LENGTH = 200;

/** The body of `POST /runs` as the contract states it (the gateway's public route and runs' internal one). */
export interface StartRunBody {
  repoId: string;
  prompt: string;
  harness?: Harness;
  baseBranch?: string;
  workingBranch?: string;
  createBranch?: boolean;
  rootDirectory?: string | null;
  conversationId?: string | null;
  workspaceSessionId?: string | null;
  mode?: string | null;
}

/**
 * The longest `conversationId` and `workspaceSessionId` accepted (issue 16: client-chosen ids of at
 * most 200 characters, counted as code points like the prompt).
 */
export const MAX_FOLLOW_UP_ID_LENGTH = 200;

/** The longest internal `model` accepted (not a contract limit: a bound on what reaches the harness's argv). */
export const MAX_MODEL_LENGTH = 200;

/**
 * The body of runs' internal start route: the public body, plus what only the system's own callers
 * (the automations engine, through `@ars/runs/client`) may send. `model` is the harness's model
 * (codex `--model`, Claude Code's `model` option); without it the harness's default.
 */
export interface InternalStartRunBody extends StartRunBody {
  model?: string;
}

const nullableString = { type: ['string', 'null'] } as const;

/** The public body's fields: their JSON Schemas. */
const START_RUN_PROPERTIES = {
  repoId: { type: 'string', minLength: 1, maxLength: MAX_REPO_ID_LENGTH },
  prompt: { type: 'string', minLength: 1 },
  harness: { enum: [...HARNESSES] },
  baseBranch: { type: 'string' },
  workingBranch: { type: 'string' },
  createBranch: { type: 'boolean' },
  rootDirectory: nullableString,
  conversationId: nullableString,
  workspaceSessionId: nullableString,
  mode: nullableString,
} as const;

/**
 * JSON Schema of `StartRunBody` (the gateway's public route): the types. Other fields pass, except
 * the internal ones, refused by name (`model is not allowed`): the gateway forwards the body as sent,
 * so a public caller must not reach what only the system may choose. The rules beyond types (the
 * prompt's length in code points, branch names, `rootDirectory`) are checked in code, since a schema
 * cannot state them.
 */
export const START_RUN_BODY_SCHEMA = {
  type: 'object',
  required: ['repoId', 'prompt'],
  properties: { ...START_RUN_PROPERTIES, model: false },
} as const;

/** JSON Schema of `InternalStartRunBody` (runs' internal route): the public schema, with `model` allowed. */
export const INTERNAL_START_RUN_BODY_SCHEMA = {
  ...START_RUN_BODY_SCHEMA,
  properties: { ...START_RUN_PROPERTIES, model: { type: 'string', minLength: 1, maxLength: MAX_MODEL_LENGTH } },
} as const;

/** CONTRACT.md, Run status. */
export const RUN_STATUSES = ['pending', 'streaming', 'success', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** CONTRACT.md, Run status: the statuses a run never leaves. */
export const TERMINAL_RUN_STATUSES = ['success', 'failed', 'cancelled'] as const;
export type TerminalRunStatus = (typeof TERMINAL_RUN_STATUSES)[number];

export function isTerminalRunStatus(status: string): status is TerminalRunStatus {
  return (TERMINAL_RUN_STATUSES as readonly string[]).includes(status);
}

const nullableStringOf = (description: string) => ({ type: ['string', 'null'], description }) as const;

/** Where a run runs (a Run's and an automation trigger result's `runtime`): `{provider, runId}`, each string or null. */
export const RUNTIME_SCHEMA = {
  type: 'object',
  required: ['provider', 'runId'],
  additionalProperties: false,
  properties: { provider: nullableString, runId: nullableString },
} as const;

/** CONTRACT.md, Run (`RunDetail`): exactly these fields. */
export const RUN_SCHEMA = {
  type: 'object',
  required: [
    'runId',
    'aiCallId',
    'sandboxRecordId',
    'sandboxId',
    'repoId',
    'harness',
    'status',
    'branch',
    'rootDirectory',
    'eventsUrl',
    'cancelUrl',
    'createdAt',
    'updatedAt',
    'error',
    'runtime',
  ],
  additionalProperties: false,
  properties: {
    runId: { type: 'string' },
    aiCallId: { type: 'string' },
    sandboxRecordId: nullableString,
    sandboxId: nullableStringOf('Null until a sandbox is allocated.'),
    repoId: { type: 'string' },
    harness: { type: 'string', enum: HARNESSES },
    status: { type: 'string', enum: RUN_STATUSES },
    branch: {
      type: 'object',
      required: ['base', 'working', 'createBranch'],
      additionalProperties: false,
      properties: { base: { type: 'string' }, working: { type: 'string' }, createBranch: { type: 'boolean' } },
    },
    rootDirectory: nullableString,
    eventsUrl: { type: 'string', description: "The path of the run's events endpoint." },
    cancelUrl: { type: 'string', description: "The path of the run's cancel endpoint." },
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
    error: nullableString,
    runtime: RUNTIME_SCHEMA,
  },
} as const;
export type Run = FromSchema<typeof RUN_SCHEMA>;

/** The Run's fields, exactly: what tests hold an answer's keys to. */
export const RUN_FIELDS = [
  'aiCallId',
  'branch',
  'cancelUrl',
  'createdAt',
  'error',
  'eventsUrl',
  'harness',
  'repoId',
  'rootDirectory',
  'runId',
  'runtime',
  'sandboxId',
  'sandboxRecordId',
  'status',
  'updatedAt',
] as const satisfies readonly (keyof Run)[];

/** CONTRACT.md, Run event (`RunEvent`): exactly these fields. */
export const RUN_EVENT_SCHEMA = {
  type: 'object',
  required: ['id', 'type', 'toolName', 'message', 'payload', 'createdAt'],
  additionalProperties: false,
  properties: {
    id: { type: 'string' },
    type: { type: 'string' },
    toolName: nullableString,
    message: nullableString,
    payload: { type: 'object', description: 'Sanitized (CONTRACT.md, Events).' },
    createdAt: { type: 'string' },
  },
} as const;
export type RunEvent = FromSchema<typeof RUN_EVENT_SCHEMA>;

/** What runs answers (202) to a start: the run, and whether the key had already made it. */
export const START_RUN_ANSWER_SCHEMA = {
  ...RUN_SCHEMA,
  required: [...RUN_SCHEMA.required, 'replayed'],
  properties: { ...RUN_SCHEMA.properties, replayed: { type: 'boolean' } },
} as const;
export type StartRunAnswer = FromSchema<typeof START_RUN_ANSWER_SCHEMA>;

/**
 * A run's token totals, summed over its harness's usage reports. `inputTokens` counts every input
 * token, cached ones included; `cachedInputTokens` is the part read from the provider's cache;
 * `outputTokens` includes reasoning. Non-negative integers.
 */
export const RUN_USAGE_SCHEMA = {
  type: 'object',
  required: ['inputTokens', 'cachedInputTokens', 'outputTokens'],
  additionalProperties: false,
  properties: {
    inputTokens: { type: 'integer', minimum: 0 },
    cachedInputTokens: { type: 'integer', minimum: 0 },
    outputTokens: { type: 'integer', minimum: 0 },
  },
} as const;
export type RunUsage = FromSchema<typeof RUN_USAGE_SCHEMA>;

/**
 * A run as runs answers it to the system's own callers (`X-Internal-View: true`, `getRun` of
 * `@ars/runs/client`): the contract's Run, plus the `model` it was started with (null: the harness's
 * default) and its `usage` (null until its sandbox reported the end, or when the harness reported none).
 * The public `GET /runs/{runId}` never shows these.
 */
/**
 * A run as the system's own callers read it (`X-Internal-View`): its `model`, its `usage`, and
 * `lastMessage`, the message of its last `assistant_message` event (sanitized like every event; null
 * without one): what an automation's agent node outputs.
 */
export type InternalRun = Run & { model: string | null; usage: RunUsage | null; lastMessage: string | null };

/** `POST /runs/{runId}/cancel`'s answer (form (a) of CONTRACT.md, with `alreadyTerminal`). */
export const CANCEL_RUN_ANSWER_SCHEMA = {
  type: 'object',
  required: ['run', 'status', 'alreadyTerminal'],
  additionalProperties: false,
  properties: {
    run: RUN_SCHEMA,
    status: { type: 'string', enum: ['cancellation_requested', 'already_terminal'] },
    alreadyTerminal: { type: 'boolean' },
  },
} as const;
export type CancelRunAnswer = FromSchema<typeof CANCEL_RUN_ANSWER_SCHEMA>;
