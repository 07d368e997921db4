/** CONTRACT.md, Idempotency: the key of `POST /runs` (the gateway forwards it to runs as is). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** The canonical body hash (RFC 8785, SHA-256) the gateway sends runs with a start (DESIGN.md, Flow of a run, step 1). */
export const REQUEST_HASH_HEADER = 'X-Request-Hash';

/**
 * Asks runs only for the replay of a key already used: 202 replay or 409 conflict as usual, 204
 * (nothing) when the key made no run yet. The gateway asks it when the run-start budget is full, so
 * a replay is never refused for the budget (docs/decisions.md).
 */
export const REPLAY_ONLY_HEADER = 'X-Replay-Only';

/**
 * Asks runs' `GET /internal/users/:userId/runs/:runId` for the internal view of the run
 * (`InternalRun`: `model`, `usage` and `lastMessage` too). The gateway forwards no caller header, so a public
 * caller never gets it.
 */
export const INTERNAL_VIEW_HEADER = 'X-Internal-View';
