// The JSON Schemas of the automation routes' answers (the `data` of each success), written once:
// the gateway's OpenAPI document shows them, and answerSchemas.test.ts holds the views' TypeScript
// interfaces and these schemas to the same shape at compile time, so neither can drift. No I/O.
import { RUN_USAGE_SCHEMA, RUNTIME_SCHEMA, REVIEW_FINDING_SCHEMA } from '@ars/contract';
import { AUTOMATION_STATUSES } from './automationView.js';
import { FLOW_GRAPH_SCHEMA, NODE_TYPES } from './flowGraph.js';
import { HARNESSES } from './nodeData.js';

const nullableString = { type: ['string', 'null'] } as const;
const AUTOMATION_RUN_STATUSES = ['pending', 'running', 'waiting', 'success', 'failed', 'cancelled'] as const;
const NODE_RUN_STATUSES = [...AUTOMATION_RUN_STATUSES, 'skipped'] as const;
/** Any JSON value (a node's input and output, an event's data). */
const ANY_JSON = {} as const;

/** CONTRACT.md, Automation summary: never a graph. */
export const AUTOMATION_SUMMARY_SCHEMA = {
  type: 'object',
  required: ['id', 'installationId', 'name', 'description', 'status', 'publishedVersionId', 'createdAt', 'updatedAt'],
  additionalProperties: false,
  properties: {
    id: { type: 'string' },
    installationId: { type: 'integer' },
    name: { type: 'string' },
    description: nullableString,
    status: { type: 'string', enum: AUTOMATION_STATUSES },
    publishedVersionId: nullableString,
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
  },
} as const;

/** CONTRACT.md, Automation (full). */
export const AUTOMATION_SCHEMA = {
  type: 'object',
  required: ['id', 'installationId', 'name', 'description', 'notes', 'status', 'draftGraph', 'publishedVersion', 'createdAt', 'updatedAt', 'runSummary'],
  additionalProperties: false,
  properties: {
    id: { type: 'string' },
    installationId: { type: 'integer' },
    name: { type: 'string' },
    description: nullableString,
    notes: nullableString,
    status: { type: 'string', enum: AUTOMATION_STATUSES },
    draftGraph: FLOW_GRAPH_SCHEMA,
    publishedVersion: {
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          required: ['id', 'versionNumber', 'graph', 'createdAt'],
          additionalProperties: false,
          properties: { id: { type: 'string' }, versionNumber: { type: 'integer' }, graph: FLOW_GRAPH_SCHEMA, createdAt: { type: 'string' } },
        },
      ],
    },
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
    runSummary: {
      type: 'object',
      required: ['lastRunId', 'lastRunStatus', 'runningCount', 'pendingCount', 'failed24h'],
      additionalProperties: false,
      properties: {
        lastRunId: nullableString,
        lastRunStatus: nullableString,
        runningCount: { type: 'integer' },
        pendingCount: { type: 'integer' },
        failed24h: { type: 'integer' },
      },
    },
  },
} as const;

const DISPATCH_EVENT_SCHEMA = {
  type: 'object',
  required: ['id', 'seq', 'type', 'nodeId', 'message', 'at'],
  additionalProperties: false,
  properties: {
    id: { type: 'string' },
    seq: { type: 'integer' },
    type: { type: 'string' },
    nodeId: nullableString,
    message: { type: 'string' },
    at: { type: 'string' },
  },
} as const;

const NODE_RUN_SUMMARY_PROPERTIES = {
  nodeId: { type: 'string' },
  type: { anyOf: [{ type: 'null' }, { type: 'string', enum: NODE_TYPES }] },
  status: { type: 'string', enum: NODE_RUN_STATUSES },
} as const;

const RUN_SUMMARY_PROPERTIES = {
  id: { type: 'string' },
  automationId: { type: 'string' },
  versionId: { type: 'string' },
  versionNumber: { type: 'integer' },
  status: { type: 'string', enum: AUTOMATION_RUN_STATUSES },
  repoId: { type: 'string' },
  baseBranch: nullableString,
  agent: {
    type: 'object',
    required: ['agentIds', 'agentRuns', 'running'],
    additionalProperties: false,
    properties: { agentIds: { type: 'array', items: { type: 'string' } }, agentRuns: { type: 'integer' }, running: { type: 'integer' } },
  },
  usage: RUN_USAGE_SCHEMA,
  costUsd: { type: ['number', 'null'] },
  latestDispatchEvent: { anyOf: [{ type: 'null' }, DISPATCH_EVENT_SCHEMA] },
  error: nullableString,
  createdAt: { type: 'string' },
  startedAt: nullableString,
  finishedAt: nullableString,
  updatedAt: { type: 'string' },
} as const;
const RUN_SUMMARY_FIELDS = [
  'id',
  'automationId',
  'versionId',
  'versionNumber',
  'status',
  'repoId',
  'baseBranch',
  'agent',
  'usage',
  'costUsd',
  'latestDispatchEvent',
  'nodeRuns',
  'error',
  'createdAt',
  'startedAt',
  'finishedAt',
  'updatedAt',
] as const;

/** The automation run list item (README, "Automation run records"). */
export const AUTOMATION_RUN_SUMMARY_SCHEMA = {
  type: 'object',
  required: RUN_SUMMARY_FIELDS,
  additionalProperties: false,
  properties: {
    ...RUN_SUMMARY_PROPERTIES,
    nodeRuns: {
      type: 'array',
      items: { type: 'object', required: ['nodeId', 'type', 'status'], additionalProperties: false, properties: NODE_RUN_SUMMARY_PROPERTIES },
    },
  },
} as const;

/** The automation run detail (README, "Automation run records"). */
export const AUTOMATION_RUN_DETAIL_SCHEMA = {
  type: 'object',
  required: [...RUN_SUMMARY_FIELDS, 'input', 'vars', 'dispatchEvents', 'dispatchEventCount', 'aiCalls', 'events', 'errors', 'reviewFindings'],
  additionalProperties: false,
  properties: {
    ...RUN_SUMMARY_PROPERTIES,
    input: ANY_JSON,
    vars: ANY_JSON,
    nodeRuns: {
      type: 'array',
      items: {
        type: 'object',
        required: ['nodeId', 'type', 'status', 'attempt', 'startedAt', 'endedAt', 'input', 'output', 'error', 'agentRunId'],
        additionalProperties: false,
        properties: {
          ...NODE_RUN_SUMMARY_PROPERTIES,
          attempt: { type: 'integer' },
          startedAt: nullableString,
          endedAt: nullableString,
          input: ANY_JSON,
          output: ANY_JSON,
          error: nullableString,
          agentRunId: nullableString,
        },
      },
    },
    dispatchEvents: { type: 'array', items: DISPATCH_EVENT_SCHEMA },
    dispatchEventCount: { type: 'integer' },
    aiCalls: {
      type: 'array',
      items: {
        type: 'object',
        required: ['nodeId', 'agentRunId', 'agentId', 'model', 'harness', 'status', 'usage', 'costUsd', 'finishedAt'],
        additionalProperties: false,
        properties: {
          nodeId: { type: 'string' },
          agentRunId: { type: 'string' },
          agentId: { type: 'string' },
          model: nullableString,
          harness: { type: 'string', enum: HARNESSES },
          status: { type: 'string', enum: ['success', 'failed', 'cancelled'] },
          usage: { anyOf: [{ type: 'null' }, RUN_USAGE_SCHEMA] },
          costUsd: { type: ['number', 'null'] },
          finishedAt: { type: 'string' },
        },
      },
    },
    events: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'name', 'data', 'receivedAt', 'consumedBy'],
        additionalProperties: false,
        properties: { id: { type: 'string' }, name: { type: 'string' }, data: ANY_JSON, receivedAt: { type: 'string' }, consumedBy: nullableString },
      },
    },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['nodeId', 'message'],
        additionalProperties: false,
        properties: { nodeId: nullableString, message: { type: 'string' } },
      },
    },
    reviewFindings: { type: 'array', items: REVIEW_FINDING_SCHEMA },
  },
} as const;

/** CONTRACT.md, Trigger result (`TriggerAutomationData`). */
export const TRIGGER_RESULT_SCHEMA = {
  type: 'object',
  required: ['run'],
  additionalProperties: false,
  properties: {
    run: {
      type: 'object',
      required: ['automationId', 'jobRunId', 'outcome', 'reason', 'started', 'status', 'runtime'],
      additionalProperties: false,
      properties: {
        automationId: { type: 'string' },
        jobRunId: nullableString,
        outcome: { type: 'string', enum: ['started', 'replayed'] },
        reason: nullableString,
        started: { type: 'boolean' },
        status: { type: 'string' },
        runtime: RUNTIME_SCHEMA,
      },
    },
  },
} as const;

/** `POST /automations/{id}/validate` (addition): every publish problem, with its stable code. */
export const VALIDATION_RESULT_SCHEMA = {
  type: 'object',
  required: ['valid', 'problems'],
  additionalProperties: false,
  properties: {
    valid: { type: 'boolean' },
    problems: {
      type: 'array',
      items: {
        type: 'object',
        required: ['code', 'message'],
        additionalProperties: false,
        properties: { nodeId: { type: 'string' }, edgeId: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
} as const;

/** `POST /automations/events` (addition, 202): the stored event and how many live runs it was delivered to. */
export const AUTOMATION_EVENT_RESULT_SCHEMA = {
  type: 'object',
  required: ['event', 'deliveredTo'],
  additionalProperties: false,
  properties: {
    event: {
      type: 'object',
      required: ['id', 'name', 'data', 'receivedAt'],
      additionalProperties: false,
      properties: { id: { type: 'string' }, name: { type: 'string' }, data: ANY_JSON, receivedAt: { type: 'string' } },
    },
    deliveredTo: { type: 'integer', minimum: 0 },
  },
} as const;
