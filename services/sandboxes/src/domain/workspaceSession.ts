// Workspace sessions (`POST /runs` `workspaceSessionId`): the runs of one share one sandbox.
import { createHash } from 'node:crypto';

/**
 * The reuse key of a workspace session's live sandbox: held by at most one live sandbox (the
 * sandboxes' unique `reuse_key` index), in a space of its own (public sandboxes hash other parts).
 */
export function workspaceReuseKey(userId: string, workspaceSessionId: string): string {
  return `workspace:${createHash('sha256')
    .update(JSON.stringify([userId, workspaceSessionId]), 'utf8')
    .digest('hex')}`;
}
