// The public API's shapes, as the services that own them type them (type imports only: erased from
// the JavaScript, so the client runs without any of those packages; see README, "Types").
import type { Agent, CancelRunAnswer, Model, RerunPrReviewData, Repo, Run, RunEvent, Sandbox, SandboxLogs, StartRunAnswer } from '@ars/contract';
import type { Automation, AutomationRunDetail, AutomationRunSummary, AutomationSummary, Problem, TriggerResult } from '@ars/automations-engine/client';
import type { McpServerItem } from '@ars/mcp-registry/client';

export type { Agent, CancelRunAnswer, Model, RerunPrReviewData, Repo, Run, RunEvent, Sandbox, SandboxLogs, StartRunAnswer };
export type { RunStatus, StartRunBody, Harness, TerminalRunStatus } from '@ars/contract';
export type { Automation, AutomationRunDetail, AutomationRunSummary, AutomationSummary, Problem, TriggerResult, McpServerItem };
export type {
  AutomationEventBody,
  CreateAutomationBody,
  FlowGraph,
  JsonValue,
  SetNodeModelBody,
  TriggerBody,
  UpdateAutomationBody,
  ValidateGraphBody,
} from '@ars/automations-engine/client';
export type { McpServerConfig } from '@ars/mcp-registry/client';
export type { CreateSandboxBody } from '@ars/sandboxes/client';

/** CONTRACT.md names for the answers (`data` of the success envelope). */
export type SandboxLogsData = SandboxLogs;
export type TriggerAutomationData = TriggerResult;

export interface ReposData {
  repos: Repo[];
}
export interface AgentsData {
  agents: Agent[];
}
export interface ModelsData {
  models: Model[];
}
export interface SandboxesData {
  sandboxes: Sandbox[];
}
export interface SandboxData {
  sandbox: Sandbox;
}
export interface AutomationsPage {
  automations: AutomationSummary[];
  nextCursor: string | null;
}
export interface AutomationData {
  automation: Automation;
}
export interface ValidateAutomationData {
  valid: boolean;
  problems: Problem[];
}
export interface AutomationRunsData {
  runs: AutomationRunSummary[];
}
export interface AutomationRunData {
  run: AutomationRunDetail | null;
}
/** `POST /automations/events` (addition): the stored event and how many live automation runs it reached. */
export interface DeliveredEventData {
  event: { id: string; name: string; data: unknown; receivedAt: string };
  deliveredTo: number;
}
export interface RunData {
  run: Run;
}
export interface RunEventsData {
  run: Run;
  events: RunEvent[];
}
export interface McpServersData {
  servers: McpServerItem[];
}
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
