import { createHash } from 'node:crypto';

/**
 * The working branch generated when `createBranch` is true and none was given: deterministic from
 * the idempotency key and the request, so a replay names the same branch.
 */
export function generatedWorkingBranch(idempotencyKey: string, bodyHash: string): string {
  const digest = createHash('sha256').update(`${idempotencyKey}\n${bodyHash}`, 'utf8').digest('hex');
  return `agent/run-${digest.slice(0, 12)}`;
}
