import type { FromSchema } from 'json-schema-to-ts';

/**
 * What a cancel found in sandboxes: a live session aborted (`signalled`), no session yet, recorded
 * so the request starts nothing, or a queued one ended (`not_started`), or a session already over
 * (`finished`).
 */
export type CancelState = 'signalled' | 'not_started' | 'finished';

/** What sandboxes answers (202) to `POST /internal/runs/:runId/cancel`. */
export interface SandboxCancelAnswer {
  runId: string;
  state: CancelState;
}

const nullableString = { type: ['string', 'null'] } as const;

const SANDBOX_PROPERTIES = {
  id: { type: 'string', description: "The service's own record id; use this one for logs." },
  sandbox_id: { type: ['string', 'null'], description: 'The provider sandbox id; not for logs.' },
  repo_id: { type: 'string' },
  status: { type: 'string' },
  base_branch: { type: 'string' },
  working_branch: { type: 'string' },
  root_directory: nullableString,
  preview_url: nullableString,
  created_at: { type: 'string' },
  last_active_at: { type: 'string' },
  error: nullableString,
} as const;
const SANDBOX_FIELDS = [
  'id',
  'sandbox_id',
  'repo_id',
  'status',
  'base_branch',
  'working_branch',
  'root_directory',
  'preview_url',
  'created_at',
  'last_active_at',
  'error',
] as const;

/** CONTRACT.md, Sandbox: exactly these fields. */
export const SANDBOX_SCHEMA = { type: 'object', required: SANDBOX_FIELDS, additionalProperties: false, properties: SANDBOX_PROPERTIES } as const;
export type Sandbox = FromSchema<typeof SANDBOX_SCHEMA>;

/** CONTRACT.md, Sandbox logs: one lifecycle event. */
export const LIFECYCLE_EVENT_SCHEMA = {
  type: 'object',
  required: ['id', 'event_type', 'decision_code', 'worker_run_id', 'payload', 'created_at'],
  additionalProperties: false,
  properties: {
    id: { type: 'string' },
    event_type: { type: 'string' },
    decision_code: nullableString,
    worker_run_id: nullableString,
    payload: { type: 'object' },
    created_at: { type: 'string' },
  },
} as const;
export type LifecycleEvent = FromSchema<typeof LIFECYCLE_EVENT_SCHEMA>;

/** CONTRACT.md, Sandbox logs (`SandboxLogsData`): the sandbox with its logs, and its lifecycle events. */
export const SANDBOX_LOGS_SCHEMA = {
  type: 'object',
  required: ['sandbox', 'lifecycle_events'],
  additionalProperties: false,
  properties: {
    sandbox: {
      type: 'object',
      required: [...SANDBOX_FIELDS, 'install_log', 'dev_log'],
      additionalProperties: false,
      properties: { ...SANDBOX_PROPERTIES, install_log: nullableString, dev_log: nullableString },
    },
    lifecycle_events: { type: 'array', items: LIFECYCLE_EVENT_SCHEMA },
  },
} as const;
export type SandboxLogs = FromSchema<typeof SANDBOX_LOGS_SCHEMA>;
