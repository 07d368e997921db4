/** CONTRACT.md, Run status: the statuses a run never leaves (kept here, not imported: the client carries no service code at run time). */
export const TERMINAL_STATUSES: ReadonlySet<string> = new Set(['success', 'failed', 'cancelled']);
