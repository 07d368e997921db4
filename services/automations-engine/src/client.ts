// The automations engine's internal API as its callers use it (pr-review today): one method per
// route. Its types are the engine's own (type imports only), so a caller pulls in no engine runtime,
// but for the public bodies' JSON Schemas (plain objects with the engine's limits).
import { IDEMPOTENCY_KEY_HEADER, type ReviewFinding } from '@ars/contract';
import type { HttpClient } from '@ars/http-client';
import type { AutomationRunDetail, AutomationRunSummary } from './domain/automationRunView.js';
import type { Automation, AutomationSummary } from './domain/automationView.js';
import type { FlowGraph } from './domain/flowGraph.js';
import type { JsonValue } from './domain/expressions.js';
import type { Problem } from './domain/publishChecks.js';
import type { AutomationEventBody, CreateAutomationBody, SetNodeModelBody, UpdateAutomationBody, ValidateGraphBody } from './http/bodies.js';
import type { TriggerResult } from './http/triggerAutomation.js';

export type { Automation, AutomationRunDetail, AutomationRunSummary, AutomationSummary, FlowGraph, JsonValue, Problem, TriggerResult };
/** The public bodies' types (the typed TypeScript client, @ars/client, sends them). */
export type { AutomationEventBody, CreateAutomationBody, SetNodeModelBody, UpdateAutomationBody, ValidateGraphBody };
/** The public bodies' JSON Schemas (the gateway's MCP tools take their input schemas from them). */
export {
  AUTOMATION_EVENT_BODY_SCHEMA,
  CREATE_AUTOMATION_BODY_SCHEMA,
  SET_NODE_MODEL_BODY_SCHEMA,
  TRIGGER_BODY_SCHEMA,
  UPDATE_AUTOMATION_BODY_SCHEMA,
  VALIDATE_GRAPH_BODY_SCHEMA,
} from './http/bodies.js';
/** The answers' JSON Schemas (the gateway's OpenAPI document shows them). */
export {
  AUTOMATION_EVENT_RESULT_SCHEMA,
  AUTOMATION_RUN_DETAIL_SCHEMA,
  AUTOMATION_RUN_SUMMARY_SCHEMA,
  AUTOMATION_SCHEMA,
  AUTOMATION_SUMMARY_SCHEMA,
  TRIGGER_RESULT_SCHEMA,
  VALIDATION_RESULT_SCHEMA,
} from './domain/answerSchemas.js';
export { FLOW_GRAPH_SCHEMA } from './domain/flowGraph.js';

export interface NewAutomation {
  installationId: number;
  name?: string;
  description?: string | null;
  notes?: string | null;
  graph?: FlowGraph;
  publish?: boolean;
}

export interface TriggerBody {
  repoId: string;
  input?: Record<string, JsonValue>;
  /** The branch the run's agent runs start from (a pull request's head, for a review); absent: the repository's default. */
  baseBranch?: string | null;
  /** Create the run without starting it (`pending`, `started: false`) until `releaseRun`. */
  hold?: boolean;
}

export interface AutomationsClient {
  /** `POST /internal/users/:userId/automations` (201): `publish: true` publishes version 1 or creates nothing (BAD_REQUEST). */
  createAutomation(userId: string, body: NewAutomation): Promise<Automation>;
  /** `GET …/automations/:automationId`; another user's or none is NOT_FOUND. */
  getAutomation(userId: string, automationId: string): Promise<Automation>;
  /** `POST …/automations/:automationId/trigger` (202) with the key: the same key and body replay the run it made. */
  trigger(userId: string, automationId: string, body: TriggerBody, idempotencyKey: string): Promise<TriggerResult['run']>;
  /** `GET …/automations/:automationId/runs/:runId`: the detail, or null when the automation has no such run. */
  getRun(userId: string, automationId: string, runId: string): Promise<AutomationRunDetail | null>;
  /** `POST …/runs/:runId/release`: a run triggered with `hold` starts; idempotent. */
  releaseRun(userId: string, automationId: string, runId: string): Promise<AutomationRunDetail>;
  /** `PUT …/runs/:runId/review-findings`: the findings of the review the run made, replacing the run's. */
  setReviewFindings(userId: string, automationId: string, runId: string, findings: ReviewFinding[]): Promise<AutomationRunDetail>;
}

/** `http`'s base URL is the service's root (`AUTOMATIONS_ENGINE_URL`); every failure is the AppError the client maps. */
export function createAutomationsClient(http: HttpClient): AutomationsClient {
  const automations = (userId: string, path = '') => `/internal/users/${encodeURIComponent(userId)}/automations${path}`;
  const one = (automationId: string, path = '') => `/${encodeURIComponent(automationId)}${path}`;
  return {
    createAutomation: async (userId, body) => (await http.post<{ automation: Automation }>(automations(userId), body)).automation,
    getAutomation: async (userId, automationId) => (await http.get<{ automation: Automation }>(automations(userId, one(automationId)))).automation,
    trigger: async (userId, automationId, body, idempotencyKey) =>
      (await http.post<TriggerResult>(automations(userId, one(automationId, '/trigger')), body, { headers: { [IDEMPOTENCY_KEY_HEADER]: idempotencyKey } })).run,
    getRun: async (userId, automationId, runId) =>
      (await http.get<{ run: AutomationRunDetail | null }>(automations(userId, one(automationId, `/runs/${encodeURIComponent(runId)}`)))).run,
    releaseRun: async (userId, automationId, runId) =>
      (await http.post<{ run: AutomationRunDetail }>(automations(userId, one(automationId, `/runs/${encodeURIComponent(runId)}/release`)), {})).run,
    setReviewFindings: async (userId, automationId, runId, findings) =>
      (
        await http.put<{ run: AutomationRunDetail }>(automations(userId, one(automationId, `/runs/${encodeURIComponent(runId)}/review-findings`)), {
          findings,
        })
      ).run,
  };
}
