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
