import { isTerminalRunStatus, type RunStatus, type TerminalRunStatus } from '@ars/contract';

// The statuses are the contract package's; named here beside the rules that move them.
export type { RunStatus };

export type TerminalStatus = TerminalRunStatus;

export function isTerminal(status: RunStatus): status is TerminalStatus {
  return isTerminalRunStatus(status);
}

/** What can happen to a run, from the events its sandbox reports (or their absence). */
export type RunSignal = { kind: 'agent_event' } | { kind: 'finished'; status: TerminalStatus };

/**
 * The one place run status moves: `pending` → `streaming` on the first agent event; any live
 * status → the terminal status its sandbox reports. A terminal run never moves again (a late or
 * redelivered message changes nothing). Returns the new status, or null when nothing changes.
 */
export function nextStatus(current: RunStatus, signal: RunSignal): RunStatus | null {
  if (isTerminal(current)) return null;
  if (signal.kind === 'agent_event') return current === 'pending' ? 'streaming' : null;
  return signal.status;
}
