// The engine's pure core (README, "Engine core"): records, happenings, effects and the one function between them.
export { applyHappening, type Transition } from './engine.js';
export { agentRunKey, timerId, type AgentRequest, type Effect } from './effects.js';
export { outstandingEffects } from './outstanding.js';
export { NotExecutableError, prepareGraph, type ExecutableGraph, type JoinPlan } from './executableGraph.js';
export type { Happening, TimerKind } from './happenings.js';
export {
  INBOX_LIMIT,
  isActive,
  isTerminal,
  newRunRecords,
  TERMINAL_RUN_STATUSES,
  type AutomationRun,
  type AutomationRunStatus,
  type InboxEvent,
  type NewRun,
  type NodeRun,
  type NodeRunStatus,
  type ReceivedEvent,
  type RunRecords,
} from './records.js';
export type { AgentCatalog, RunProgram } from './transition.js';
