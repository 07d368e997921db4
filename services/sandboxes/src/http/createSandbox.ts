import { ok, validateBody, type Router } from '@ars/http-app';
import type { CreateSandboxBody } from '../domain/sandboxRequest.js';
import { toSandbox } from '../domain/sandboxView.js';
import { createSandbox } from '../lifecycle/createSandbox.js';
import type { LifecycleDeps } from '../lifecycle/deps.js';
import { CREATE_SANDBOX_BODY_SCHEMA } from './bodies.js';
import { pathParam, requestBody } from './params.js';

/** CONTRACT.md, POST /sandboxes, Body (the types; the rules beyond types are `planSandbox`'s). */
const parseCreateSandbox = validateBody<CreateSandboxBody>(CREATE_SANDBOX_BODY_SCHEMA);

/** `POST /internal/users/:userId/sandboxes` (the public body) → 202 `{sandbox}`: reused or newly provisioning. */
export function createSandboxRoute(router: Router, deps: LifecycleDeps): void {
  router.post('/users/:userId/sandboxes', async (ctx) => {
    const userId = pathParam(ctx, 'userId');
    const body = parseCreateSandbox(requestBody(ctx));
    const { sandbox } = await createSandbox(deps, userId, body);
    ok(ctx, { sandbox: toSandbox(sandbox) }, 202);
  });
}
