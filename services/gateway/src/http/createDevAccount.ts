import { ok, validateBody, type RouterMiddleware } from '@ars/http-app';
import type { Gateway } from './deps.js';
import { requestBody } from './requestBody.js';
import { startSession } from './sessionAuth.js';

const parseDevAccount = validateBody<{ repoCount?: number }>({
  type: 'object',
  properties: { repoCount: { type: 'integer', minimum: 2, maximum: 20 } },
});

/**
 * POST /api/dev/accounts (only outside production): a new user, a session for it, and a new
 * installation with real repositories on the local source host (the catalog's
 * `POST /internal/dev/installations`). 201 `{userId, sessionCookie, installationId, repos}`.
 */
export function createDevAccount(gateway: Gateway): RouterMiddleware {
  return async (ctx) => {
    const body = parseDevAccount(requestBody(ctx));
    const user = await gateway.users.create('dev');
    const created = await gateway.catalog.createDevInstallation({ userId: user._id, repoCount: body.repoCount ?? 2 });
    const sessionCookie = await startSession(gateway, ctx, user._id);
    ok(
      ctx,
      {
        userId: user._id,
        sessionCookie,
        installationId: created.installation.id,
        repos: created.repos.map((repo) => ({ id: repo.id, full_name: repo.full_name, default_branch: repo.default_branch })),
      },
      201,
    );
  };
}
