import type { CatalogClient } from '@ars/catalog/client';
import type { CatalogRepo } from '@ars/contract';
import { waitingOutPeerOutage } from '@ars/http-client';

/**
 * How long a sandbox being made for a run or a public create, which no client is waiting on, rides out
 * a catalog that is down (its rollout, a restart) before failing for it. Well inside runs' start
 * deadline (RUN_START_TIMEOUT_MS, 120 s by default).
 */
export const CATALOG_OUTAGE_WAIT_MS = 30_000;

/** The repository (its clone URL) from the catalog, waiting out a catalog briefly unavailable. */
export function repoWaitingOutCatalogOutage(catalog: CatalogClient, userId: string, repoId: string, signal: AbortSignal): Promise<CatalogRepo> {
  return waitingOutPeerOutage(() => catalog.repo(userId, repoId, { signal }), { withinMs: CATALOG_OUTAGE_WAIT_MS, signal });
}
