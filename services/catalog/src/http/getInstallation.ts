import { AppError } from '@ars/errors';
import { ok, type Router, pathParam } from '@ars/http-app';
import type { CatalogDeps } from './deps.js';

/** `GET /internal/users/:userId/installations/:installationId` → `{installation: {id, account, provider}}`, 404 unless the user reaches it. */
export function getInstallation(router: Router, deps: CatalogDeps): void {
  router.get('/users/:userId/installations/:installationId', async (ctx) => {
    const userId = pathParam(ctx, 'userId');
    const raw = pathParam(ctx, 'installationId');
    const id = /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
    const reached = Number.isSafeInteger(id) && (await deps.access.reachesInstallation(userId, id));
    const installation = reached ? await deps.installations.find(id) : null;
    if (!installation || installation.deletedAt) throw AppError.notFound('Installation not found');
    ok(ctx, { installation: { id: installation._id, account: installation.account, provider: installation.provider } });
  });
}
