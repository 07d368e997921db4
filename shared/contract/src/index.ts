export { IDEMPOTENCY_KEY_HEADER, INTERNAL_VIEW_HEADER, REPLAY_ONLY_HEADER, REQUEST_HASH_HEADER } from './headers.js';
export {
  HARNESSES,
  INTERNAL_START_RUN_BODY_SCHEMA,
  MAX_MODEL_LENGTH,
  MAX_PROMPT_LENGTH,
  MAX_REPO_ID_LENGTH,
  RUN_FIELDS,
  RUN_STATUSES,
  START_RUN_BODY_SCHEMA,
  type Harness,
  type CancelRunAnswer,
  type InternalRun,
  type InternalStartRunBody,
  type Run,
  type RunEvent,
  type RunStatus,
  type RunUsage,
  type StartRunAnswer,
  type StartRunBody,
} from './runs.js';
export type { Agent, CatalogRepo, DevInstallation, Model, Repo } from './catalog.js';
export type { CancelState, LifecycleEvent, Sandbox, SandboxCancelAnswer, SandboxLogs } from './sandboxes.js';
export {
  FINDINGS_FENCE,
  FINDING_SEVERITIES,
  MAX_FINDINGS,
  MAX_FINDING_ANCHOR_LENGTH,
  MAX_FINDING_MESSAGE_LENGTH,
  MAX_FINDING_PATH_LENGTH,
  MAX_FINDING_RULE_ID_LENGTH,
  MAX_FINDING_TITLE_LENGTH,
  REPORTED_FINDING_SCHEMA,
  type FindingSeverity,
  type ReportedFinding,
} from './findings.js';
