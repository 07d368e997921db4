// What a GitHub App delivery asks of the catalog. Deliveries may come twice or out of order, so the
// catalog does not apply a delivery's delta: an uninstall is final (GitHub gives a reinstallation a
// new id), and every other change of an installation — created, suspended or unsuspended,
// repositories added or removed, a repository renamed, transferred, edited or deleted — asks for
// the installation to be read again from GitHub, which is the truth now whatever the order.
import type { GitHubInstallationSeen } from '../store/installations.js';

/** The events the catalog reads (webhook `X-GitHub-Event`); pr-review hands these over. */
export const CATALOG_GITHUB_EVENTS = ['installation', 'installation_repositories', 'repository'] as const;

export type InstallationChange =
  { kind: 'uninstalled'; externalId: number } | { kind: 'resync'; installation: GitHubInstallationSeen; action: string } | { kind: 'ignored'; why: string };

type Json = Record<string, unknown>;
const object = (value: unknown): Json | null => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null);
const positive = (value: unknown): number | null => (typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : null);

/** Reads a delivery (its event name and JSON payload); never throws on a payload of another shape. */
export function readInstallationChange(event: string, payload: unknown): InstallationChange {
  if (!(CATALOG_GITHUB_EVENTS as readonly string[]).includes(event)) return { kind: 'ignored', why: `${event} events are not the catalog's` };
  const body = object(payload);
  const installation = object(body?.installation);
  const externalId = positive(installation?.id);
  if (!body || externalId === null) return { kind: 'ignored', why: `${event} without an installation id` };
  const action = typeof body.action === 'string' ? body.action : '(no action)';
  if (event === 'installation' && action === 'deleted') return { kind: 'uninstalled', externalId };
  const login = object(installation?.account)?.login;
  const suspendedAt = typeof installation?.suspended_at === 'string' ? new Date(installation.suspended_at) : null;
  return {
    kind: 'resync',
    action: `${event}.${action}`,
    installation: {
      externalId,
      // `installation_repositories` and `repository` payloads carry only the installation's id; its account is kept as it was.
      account: typeof login === 'string' && login.length > 0 ? login : '',
      suspendedAt: suspendedAt && !Number.isNaN(suspendedAt.getTime()) ? suspendedAt : null,
    },
  };
}
