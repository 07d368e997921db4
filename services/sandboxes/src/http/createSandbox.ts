import { ok, validateBody, type Router } from '@ars/http-app';
import type { CreateSandboxBody } from '../domain/sandboxRequest.js';
import { toSandbox } from '../domain/sandboxView.js';
import { createSandbox } from '../lifecycle/createSandbox.js';
import type { LifecycleDeps } from '../lifecycle/deps.js';
import { pathParam, requestBody } from './params.js';

const nullableString = { type: ['string', 'null'], maxLength: 1000 };

/** CONTRACT.md, POST /sandboxes, Body (the types; the rules beyond types are `planSandbox`'s). */
const parseCreateSandbox = validateBody<CreateSandboxBody>({
  type: 'object',
  required: ['repoId'],
  properties: {
    repoId: { type: 'string', minLength: 1, maxLength: 200 },
    baseBranch: nullableString,
    workingBranch: nullableString,
    createBranch: { type: 'boolean' },
    rootDirectory: nullableString,
    restoreSnapshotId: { type: ['string', 'null'], minLength: 1, maxLength: 200 },
    restoreSnapshotProjectId: nullableString,
    restoreSnapshotTeamId: nullableString,
  },
});

/** `POST /internal/users/:userId/sandboxes` (the public body) → 202 `{sandbox}`: reused or newly provisioning. */
export function createSandboxRoute(router: Router, deps: LifecycleDeps): void {
  router.post('/users/:userId/sandboxes', async (ctx) => {
    const userId = pathParam(ctx, 'userId');
    const body = parseCreateSandbox(requestBody(ctx));
    const { sandbox } = await createSandbox(deps, userId, body);
    ok(ctx, { sandbox: toSandbox(sandbox) }, 202);
  });
}
