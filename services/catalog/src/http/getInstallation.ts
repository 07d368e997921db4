import { AppError } from '@ars/errors';
import { ok, type Router, pathParam } from '@ars/http-app';
import type { CatalogDeps } from './deps.js';

/** `GET /internal/users/:userId/installations/:installationId` → `{installation: {id, account, provider}}`, 404 unless the user's. */
export function getInstallation(router: Router, deps: CatalogDeps): void {
  router.get('/users/:userId/installations/:installationId', async (ctx) => {
    const userId = pathParam(ctx, 'userId');
    const raw = pathParam(ctx, 'installationId');
    const id = /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
    const installation = Number.isSafeInteger(id) ? await deps.installations.findOwned(userId, id) : null;
    if (!installation) throw AppError.notFound('Installation not found');
    ok(ctx, { installation: { id: installation._id, account: installation.account, provider: installation.provider } });
  });
}
