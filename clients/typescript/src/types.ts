// The public API's shapes, all derived from `openapi.ts`, which `npm run openapi` generates from the
// checked-in OpenAPI document (clients/openapi.json) with openapi-typescript. So the client carries no
// type of the services' own packages and is published on its own (README, "Types"); the document is
// generated from the very schemas the routes validate with, so these names cannot drift from them.
import type { components, operations } from './openapi.js';

type Schemas = components['schemas'];
/** The JSON body an operation takes. */
type BodyOf<Op extends keyof operations> = operations[Op] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
/** The `data` of an operation's success envelope. */
type DataOf<Op extends keyof operations, Status extends number> =
  operations[Op]['responses'] extends Record<Status, { content: { 'application/json': { data: infer D } } }> ? D : never;

export type Repo = Schemas['Repo'];
export type Agent = Schemas['Agent'];
export type Model = Schemas['Model'];
export type Sandbox = Schemas['Sandbox'];
export type SandboxLogs = Schemas['SandboxLogs'];
export type Run = Schemas['Run'];
export type RunEvent = Schemas['RunEvent'];
export type StartRunAnswer = Schemas['StartRunAnswer'];
export type CancelRunAnswer = Schemas['CancelRunAnswer'];
export type RerunPrReviewData = Schemas['RerunPrReviewData'];
export type Automation = Schemas['Automation'];
export type AutomationSummary = Schemas['AutomationSummary'];
export type AutomationRunSummary = Schemas['AutomationRunSummary'];
export type AutomationRunDetail = Schemas['AutomationRunDetail'];
export type FlowGraph = Schemas['FlowGraph'];
export type TriggerResult = Schemas['TriggerAutomationData'];
export type Problem = Schemas['ValidationResult']['problems'][number];
export type McpServerItem = Schemas['McpServerItem'];
/** A server's launch or connection settings (secret: may carry resolved env values and headers). */
export type McpServerConfig = McpServerItem['config'];

/** CONTRACT.md, Run status. */
export type RunStatus = Run['status'];
/** The statuses a run never leaves. */
export type TerminalRunStatus = Exclude<RunStatus, 'pending' | 'streaming'>;
export type Harness = Run['harness'];
/** Any JSON value (an automation's trigger input and event data). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export type StartRunBody = BodyOf<'postRuns'>;
export type CreateSandboxBody = BodyOf<'postSandboxes'>;
export type CreateAutomationBody = BodyOf<'postAutomations'>;
export type UpdateAutomationBody = BodyOf<'putAutomationsByAutomationId'>;
export type SetNodeModelBody = BodyOf<'putAutomationsByAutomationIdModel'>;
export type ValidateGraphBody = BodyOf<'postAutomationsByAutomationIdValidate'>;
export type TriggerBody = BodyOf<'postAutomationsByAutomationIdTrigger'>;
export type AutomationEventBody = BodyOf<'postAutomationsEvents'>;

/** CONTRACT.md names for the answers (`data` of the success envelope). */
export type SandboxLogsData = SandboxLogs;
export type TriggerAutomationData = TriggerResult;

export type ReposData = DataOf<'getRepos', 200>;
export type AgentsData = DataOf<'getAgents', 200>;
export type ModelsData = DataOf<'getModels', 200>;
export type SandboxesData = DataOf<'getSandboxes', 200>;
export type SandboxData = DataOf<'postSandboxes', 202>;
export type AutomationsPage = DataOf<'getAutomations', 200>;
export type AutomationData = DataOf<'getAutomationsByAutomationId', 200>;
export type ValidateAutomationData = DataOf<'postAutomationsByAutomationIdValidate', 200>;
export type AutomationRunsData = DataOf<'getAutomationsByAutomationIdRuns', 200>;
export type AutomationRunData = DataOf<'getAutomationsByAutomationIdRunsByRunId', 200>;
/** `POST /automations/events` (addition): the stored event and how many live automation runs it reached. */
export type DeliveredEventData = DataOf<'postAutomationsEvents', 202>;
export type RunData = DataOf<'getRunsByRunId', 200>;
export type RunEventsData = DataOf<'getRunsByRunIdEvents', 200>;
export type McpServersData = DataOf<'getMcpServers', 200>;
/** `DELETE {base_url}/api/settings/api-keys/current`: the PAT that made the request, revoked. */
export interface RevokedApiKeyData {
  revoked: true;
  id: string;
}
/** `POST {base_url}/api/cli/login/token`: the PAT minted for the CLI (its plaintext only here). */
export interface LoginTokenData {
  token: string;
  id: string;
  prefix: string;
  scopes: string[];
  expiresAt: string;
}
