// A GitHub App delivery applied to the catalog (pr-review checks its signature and takes each
// X-GitHub-Delivery once, then hands the catalog's events over). See domain/gitHubEvents.ts for why
// every change but an uninstall is a fresh read of the installation from GitHub.
import { AppError } from '@ars/errors';
import type { GitHubAppSourceHost } from '@ars/source-host';
import { readInstallationChange } from '../domain/gitHubEvents.js';
import type { GitHubInstallationSeen } from '../store/installations.js';
import { syncInstallationRepositories, uninstall, type InstallationStores } from './installationRepositories.js';

/** What a delivery came to (pr-review records it as the delivery's outcome). */
export type DeliveryApplied =
  | { kind: 'uninstalled'; installationId: number | null }
  | { kind: 'synced'; installationId: number; repositories: number; removed: number }
  | { kind: 'suspended'; installationId: number }
  | { kind: 'ignored'; why: string };

export async function applyGitHubDelivery(
  stores: InstallationStores,
  githubHost: GitHubAppSourceHost | undefined,
  delivery: { event: string; payload: unknown },
): Promise<DeliveryApplied> {
  const change = readInstallationChange(delivery.event, delivery.payload);
  if (change.kind === 'ignored') return change;
  if (change.kind === 'uninstalled') {
    const installation = await stores.installations.findByExternalId('github', change.externalId);
    if (installation) await uninstall(stores, installation);
    return { kind: 'uninstalled', installationId: installation?._id ?? null };
  }
  if (!githubHost) throw AppError.unavailable('The GitHub App is not configured in the catalog (GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY)');
  return resyncInstallation(stores, githubHost, change.installation);
}

/**
 * Reads the installation from GitHub as the App and makes the catalog say the same: uninstalled when
 * GitHub no longer has it (404), suspended or not as GitHub says now, and, when not suspended, its
 * repositories as GitHub lists them now. GitHub failing or unreachable is 503, so the delivery is retried.
 */
export async function resyncInstallation(stores: InstallationStores, githubHost: GitHubAppSourceHost, seen: GitHubInstallationSeen): Promise<DeliveryApplied> {
  const known = await stores.installations.findByExternalId('github', seen.externalId);
  if (known?.deletedAt) return { kind: 'ignored', why: `installation ${known._id} was uninstalled` };
  const now = await githubHost.appInstallation(seen.externalId).catch(() => {
    throw unreadable();
  });
  if (!now) {
    if (known) await uninstall(stores, known);
    return { kind: 'uninstalled', installationId: known?._id ?? null };
  }
  const suspendedAt = now.suspendedAt ? new Date(now.suspendedAt) : null;
  const installation = await stores.installations.upsertGitHub({ externalId: seen.externalId, account: now.account, suspendedAt }, null);
  await stores.installations.setSuspended(installation._id, suspendedAt);
  // A suspended installation mints no token: its repositories stay as they were until it is unsuspended.
  if (suspendedAt) return { kind: 'suspended', installationId: installation._id };
  const hosted = await githubHost.listRepositories({ account: installation.account, externalId: installation.externalId }).catch(() => {
    throw unreadable();
  });
  const { repos, removed } = await syncInstallationRepositories(stores, installation, hosted);
  return { kind: 'synced', installationId: installation._id, repositories: repos.length, removed };
}

const unreadable = (): AppError => AppError.unavailable('GitHub could not be read for the installation now; the delivery can be retried');
