import { MAX_REPO_ID_LENGTH } from '@ars/contract';
import { AUTOMATION_STATUSES } from '../domain/automationView.js';
import { AUTOMATION_LIMITS } from '../domain/automationLimits.js';
import type { JsonValue } from '../domain/expressions.js';
import { NODE_DATA_LIMITS } from '../domain/nodeData.js';

// The JSON Schemas of the automation routes' bodies: types and sizes. `graph` is any value here:
// `parseFlowGraph` checks it whole and names every problem's path.

const installationId = { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER };
const name = { type: 'string', minLength: 1, maxLength: AUTOMATION_LIMITS.maxNameLength };
const description = { type: ['string', 'null'], maxLength: AUTOMATION_LIMITS.maxDescriptionLength };
const notes = { type: ['string', 'null'], maxLength: AUTOMATION_LIMITS.maxNotesLength };

export interface CreateAutomationBody {
  installationId: number;
  name?: string;
  description?: string | null;
  notes?: string | null;
  graph?: unknown;
  publish?: boolean;
}

export const CREATE_AUTOMATION_BODY_SCHEMA = {
  type: 'object',
  required: ['installationId'],
  properties: { installationId, name, description, notes, graph: {}, publish: { type: 'boolean' } },
};

export interface UpdateAutomationBody {
  installationId?: number;
  name?: string;
  description?: string | null;
  notes?: string | null;
  graph?: unknown;
  status?: (typeof AUTOMATION_STATUSES)[number];
}

export const UPDATE_AUTOMATION_BODY_SCHEMA = {
  type: 'object',
  properties: { installationId, name, description, notes, graph: {}, status: { enum: [...AUTOMATION_STATUSES] } },
};

export interface SetNodeModelBody {
  nodeId: string;
  modelId: string | null;
  publish?: boolean;
}

export const SET_NODE_MODEL_BODY_SCHEMA = {
  type: 'object',
  required: ['nodeId', 'modelId'],
  properties: {
    nodeId: { type: 'string', minLength: 1, maxLength: 200 },
    modelId: { type: ['string', 'null'], minLength: 1, maxLength: 200 },
    publish: { type: 'boolean' },
  },
};

export interface ValidateGraphBody {
  graph?: unknown;
}

export const VALIDATE_GRAPH_BODY_SCHEMA = { type: 'object', properties: { graph: {} } };

export interface TriggerBody {
  repoId: string;
  input?: Record<string, JsonValue>;
  baseBranch?: string | null;
  hold?: boolean;
}

/**
 * `POST …/trigger`: `repoId` (the catalog's bound) and `input`, any JSON object (the start node's
 * `inputSchema` checks it further); `baseBranch` (addition) the branch its agent runs start from,
 * a valid branch name (checked by the route), null or absent for the repository's default; `hold`
 * (addition) creates the run without starting it, until `…/runs/:runId/release` (a PR review queued
 * behind another on the same commit).
 */
export const TRIGGER_BODY_SCHEMA = {
  type: 'object',
  required: ['repoId'],
  properties: {
    repoId: { type: 'string', minLength: 1, maxLength: MAX_REPO_ID_LENGTH },
    input: { type: 'object' },
    baseBranch: { type: ['string', 'null'], minLength: 1, maxLength: 255 },
    hold: { type: 'boolean' },
  },
};

export interface AutomationEventBody {
  name: string;
  data?: JsonValue;
}

/** `POST /automations/events`: the name an await_event node waits for (its `event`, at most 200 characters) and any JSON. */
export const AUTOMATION_EVENT_BODY_SCHEMA = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string', minLength: 1, maxLength: NODE_DATA_LIMITS.maxEventNameLength }, data: {} },
};
