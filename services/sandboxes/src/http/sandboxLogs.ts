import { ok, type Router } from '@ars/http-app';
import { toSandboxLogs } from '../domain/sandboxView.js';
import type { LifecycleDeps } from '../lifecycle/deps.js';
import { pathParam, sandboxNotFound } from './params.js';

/**
 * `GET /internal/users/:userId/sandboxes/:sandboxId/logs` (the record id) → the Sandbox with
 * `install_log` and `dev_log` as they are now, and its `lifecycle_events` oldest first. Another
 * user's sandbox is 404.
 */
export function sandboxLogsRoute(router: Router, deps: LifecycleDeps): void {
  router.get('/users/:userId/sandboxes/:sandboxId/logs', async (ctx) => {
    const sandbox = await deps.sandboxRecords.get(pathParam(ctx, 'userId'), pathParam(ctx, 'sandboxId'));
    if (!sandbox) throw sandboxNotFound();
    const [logs, events] = await Promise.all([deps.logs.get(sandbox._id), deps.sandboxRecords.lifecycleOf(sandbox._id)]);
    ok(ctx, toSandboxLogs(sandbox, logs, events));
  });
}
