// GitHub's side of installing a GitHub App, written from GitHub's documentation ("Installing your
// own GitHub App", "About the setup URL", the REST pages "GitHub App installations" for
// GET /user/installations and GET /user/installations/{installation_id}/repositories, and the
// webhook events `installation`, `installation_repositories` and `repository`):
// - the install page `/apps/{slug}/installations/new?state=`: the browser's GitHub user (the
//   `gh_user` sign-in of userAuth.ts) picks an account it may install on (itself, or an
//   organization it administers) and all or some of that account's repositories; GitHub then sends
//   the browser to the App's Setup URL with `installation_id`, `setup_action` (`install`, or
//   `update` when the account had the App already) and the `state` it was given, and delivers the
//   `installation` (or `installation_repositories`) webhook;
// - the user routes, with a user access token (`ghu_`): the installations the user can reach (their
//   own account's, and those of organizations they are an active member of) and an installation's
//   repositories (404 for one they cannot reach, as GitHub answers);
// - what an account owner does on GitHub itself (uninstall, suspend, change the selection, rename or
//   transfer a repository, change its default branch), each followed by its webhook, and GitHub's
//   "Redeliver", which sends a delivery again with the same `X-GitHub-Delivery`.
// Simplified: every member of an organization sees all of an installation's repositories (GitHub
// narrows that to the repositories the member may read).
import type { IncomingMessage } from 'node:http';
import type { StandInUser, UserAuth, UserAuthAnswer } from './userAuth.js';
import { sendWebhook, type WebhookDelivery, type WebhookTarget } from './webhooks.js';

/** The App as GitHub knows it: its slug (its public page), its Setup URL and its one webhook. */
export interface StandInAppSettings {
  slug: string;
  /** Where GitHub sends the browser after an install or a change (GitHub's "Setup URL"). */
  setupUrl?: string;
  /** The App's webhook URL and secret; without it no webhook is delivered. */
  webhook?: WebhookTarget;
}

/** A GitHub account an App can be installed on, with the repositories it owns. */
export interface StandInAccount {
  login: string;
  type: 'User' | 'Organization';
  repositories: { name: string; defaultBranch: string; cloneUrl?: string }[];
}

/** An installation as the stand-in keeps it (its repositories are hosted by the stand-in). */
export interface StandInInstallation {
  id: number;
  account: { login: string; id: number; type: 'User' | 'Organization' };
  repositorySelection: 'all' | 'selected';
  suspendedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** What the installations part needs of the stand-in's repository hosting. */
export interface InstallationHosting {
  /** The installation's repositories, as the REST API shows them (`id`, `full_name`, …). */
  repositories(installationId: number): Record<string, unknown>[];
  host(installationId: number, repositories: { owner: string; name: string; defaultBranch: string; cloneUrl?: string }[]): void;
  unhost(installationId: number, fullNames: readonly string[]): void;
  drop(installationId: number): void;
  /** Renames or moves a hosted repository (its id stays); answers its JSON before the change. */
  rename(fullName: string, to: { owner: string; name: string }): Record<string, unknown>;
  setDefaultBranch(fullName: string, branch: string): void;
  /** The installation that hosts the repository. */
  installationOf(fullName: string): number;
  repository(fullName: string): Record<string, unknown>;
}

export interface AppInstallations {
  /** Answers the install pages and the user installation routes; undefined for any other path. */
  handle(req: IncomingMessage, url: URL): Promise<UserAuthAnswer | undefined>;
  addAccount(account: StandInAccount): void;
  /** Records an installation made outside the browser flow (the stand-in's `installations` option). */
  record(id: number, accountLogin: string): void;
  list(): StandInInstallation[];
  /** `GET /app/installations/{id}` (as the App): the installation's JSON, undefined when GitHub has none. */
  get(installationId: number): Record<string, unknown> | undefined;
  deliveries(): WebhookDelivery[];
  uninstall(installationId: number): Promise<WebhookDelivery | undefined>;
  suspend(installationId: number, suspended: boolean): Promise<WebhookDelivery | undefined>;
  selectRepositories(installationId: number, change: { add?: string[]; remove?: string[] }): Promise<WebhookDelivery | undefined>;
  renameRepository(fullName: string, to: { owner?: string; name?: string }): Promise<WebhookDelivery | undefined>;
  setDefaultBranch(fullName: string, branch: string): Promise<WebhookDelivery | undefined>;
  /** GitHub's "Redeliver": the same delivery (id, body, signature) sent again. */
  redeliver(deliveryId: string): Promise<WebhookDelivery>;
}

const DOCS = 'https://docs.github.com/rest';
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
const page = (title: string, body: string, status = 200): UserAuthAnswer => ({
  status,
  body: `<!doctype html><html><head><title>${escapeHtml(title)}</title></head><body>${body}</body></html>`,
  headers: { 'content-type': 'text/html; charset=utf-8' },
});
const notFound = (): UserAuthAnswer => ({ status: 404, body: { message: 'Not Found', documentation_url: DOCS, status: '404' } });
const iso = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
/** GitHub's account ids are numbers; the stand-in derives a stable one from the login. */
const accountId = (login: string): number => 5_000_000 + [...login.toLowerCase()].reduce((sum, c) => (sum * 31 + c.charCodeAt(0)) % 4_000_000, 0);

async function formFields(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

export function createAppInstallations(options: {
  app: StandInAppSettings | undefined;
  appId: string;
  users: UserAuth;
  hosting: InstallationHosting;
  apiUrl: () => string;
}): AppInstallations {
  const { app, users, hosting } = options;
  const accounts = new Map<string, StandInAccount>();
  const installations = new Map<number, StandInInstallation>();
  const sent: { delivery: WebhookDelivery; target: WebhookTarget }[] = [];
  let nextInstallationId = 70_001;

  const accountOf = (login: string): StandInAccount | undefined => accounts.get(login.toLowerCase());
  const installationOfAccount = (login: string): StandInInstallation | undefined =>
    [...installations.values()].find((installation) => installation.account.login.toLowerCase() === login.toLowerCase());
  /** The accounts a user may install the App on: their own, and the organizations they administer. */
  const installableBy = (user: StandInUser): StandInAccount[] => {
    const own = accountOf(user.login) ?? { login: user.login, type: 'User' as const, repositories: [] };
    const administered = Object.entries(user.orgs ?? {})
      .filter(([, membership]) => membership.role === 'admin' && membership.state === 'active')
      .map(([org]) => accountOf(org) ?? { login: org, type: 'Organization' as const, repositories: [] });
    return [own, ...administered];
  };
  /** Whether the user reaches the installation: its account is theirs, or an organization they are an active member of. */
  const reaches = (user: StandInUser, installation: StandInInstallation): boolean => {
    const login = installation.account.login.toLowerCase();
    if (installation.account.type === 'User') return user.login.toLowerCase() === login;
    return Object.entries(user.orgs ?? {}).some(([org, membership]) => org.toLowerCase() === login && membership.state === 'active');
  };

  const installationJson = (installation: StandInInstallation) => ({
    id: installation.id,
    account: {
      login: installation.account.login,
      id: installation.account.id,
      node_id: `${installation.account.type === 'User' ? 'U' : 'O'}_${installation.account.id}`,
      type: installation.account.type,
      site_admin: false,
    },
    repository_selection: installation.repositorySelection,
    access_tokens_url: `${options.apiUrl()}/app/installations/${installation.id}/access_tokens`,
    repositories_url: `${options.apiUrl()}/installation/repositories`,
    html_url: `https://github.com/settings/installations/${installation.id}`,
    app_id: Number(options.appId),
    app_slug: app?.slug ?? '',
    target_id: installation.account.id,
    target_type: installation.account.type,
    permissions: { checks: 'write', contents: 'write', metadata: 'read', pull_requests: 'write' },
    events: ['check_run', 'pull_request'],
    created_at: installation.createdAt,
    updated_at: installation.updatedAt,
    single_file_name: null,
    suspended_at: installation.suspendedAt,
    suspended_by: null,
  });
  /** A repository as installation webhooks list them (a short form). */
  const shortRepository = (repository: Record<string, unknown>) => ({
    id: repository.id,
    node_id: repository.node_id,
    name: repository.name,
    full_name: repository.full_name,
    private: repository.private,
  });
  const sender = (login: string) => ({ login, id: accountId(login), node_id: `U_${accountId(login)}`, type: 'User', site_admin: false });

  const deliver = async (event: string, payload: Record<string, unknown>): Promise<WebhookDelivery | undefined> => {
    if (!app?.webhook) return undefined;
    const delivery = await sendWebhook(app.webhook, event, payload);
    sent.push({ delivery, target: app.webhook });
    return delivery;
  };
  const mustFind = (installationId: number): StandInInstallation => {
    const installation = installations.get(installationId);
    if (!installation) throw new Error(`the stand-in has no installation ${installationId}`);
    return installation;
  };
  const repositoriesOf = (account: StandInAccount, names: readonly string[] | 'all') =>
    account.repositories
      .filter((repository) => names === 'all' || names.some((name) => name.toLowerCase() === repository.name.toLowerCase()))
      .map((repository) => ({ owner: account.login, ...repository }));

  /** GET /apps/{slug}/installations/new: the browser's user (signed in first) picks an account and repositories. */
  const installPage = (req: IncomingMessage, url: URL): UserAuthAnswer => {
    const user = users.browserUser(req);
    if (!user) return users.signInPage(`${url.pathname}${url.search}`);
    const state = url.searchParams.get('state') ?? '';
    const choices = installableBy(user)
      .map((account) => {
        const repositories = account.repositories
          .map((r) => `<label><input type="checkbox" name="repositories" value="${escapeHtml(r.name)}"> ${escapeHtml(r.name)}</label>`)
          .join(' ');
        return `<fieldset><legend><label><input type="radio" name="account" value="${escapeHtml(account.login)}" required> ${escapeHtml(account.login)}</label></legend>${repositories}</fieldset>`;
      })
      .join('');
    return page(
      `Install ${app?.slug ?? ''}`,
      `<h1>Install ${escapeHtml(app?.slug ?? '')}</h1><form method="post" action="/apps/${encodeURIComponent(app?.slug ?? '')}/installations">
<input type="hidden" name="state" value="${escapeHtml(state)}">${choices}
<label><input type="radio" name="repository_selection" value="all" checked> All repositories</label>
<label><input type="radio" name="repository_selection" value="selected"> Only select repositories</label>
<button type="submit">Install</button></form>`,
    );
  };

  /** POST /apps/{slug}/installations: installs (or changes the selection of) the App on the account, then the Setup URL. */
  const install = async (req: IncomingMessage): Promise<UserAuthAnswer> => {
    const user = users.browserUser(req);
    const form = await formFields(req);
    if (!user) return page('Sign in', '<h1>Sign in to GitHub first.</h1>', 401);
    const account = installableBy(user).find((candidate) => candidate.login.toLowerCase() === (form.get('account') ?? '').toLowerCase());
    if (!account) return page('Not allowed', '<h1>You cannot install this App on that account.</h1>', 403);
    const selection = form.get('repository_selection') === 'selected' ? 'selected' : 'all';
    const chosen = repositoriesOf(account, selection === 'all' ? 'all' : form.getAll('repositories'));
    const existing = installationOfAccount(account.login);
    let installationId: number;
    if (existing) {
      installationId = existing.id;
      const before = new Set(hosting.repositories(existing.id).map((r) => String(r.full_name).toLowerCase()));
      const after = new Set(chosen.map((r) => `${r.owner}/${r.name}`.toLowerCase()));
      await selectRepositoriesOf(existing, {
        add: chosen.filter((r) => !before.has(`${r.owner}/${r.name}`.toLowerCase())).map((r) => r.name),
        remove: [...before].filter((fullName) => !after.has(fullName)).map((fullName) => fullName.split('/')[1] ?? ''),
        selection,
        by: user.login,
      });
    } else {
      installationId = nextInstallationId++;
      const at = iso();
      const installation: StandInInstallation = {
        id: installationId,
        account: { login: account.login, id: accountId(account.login), type: account.type },
        repositorySelection: selection,
        suspendedAt: null,
        createdAt: at,
        updatedAt: at,
      };
      installations.set(installationId, installation);
      hosting.host(installationId, chosen);
      await deliver('installation', {
        action: 'created',
        installation: installationJson(installation),
        repositories: hosting.repositories(installationId).map(shortRepository),
        requester: null,
        sender: sender(user.login),
      });
    }
    if (!app?.setupUrl) return page('Installed', `<h1>Installed (installation ${installationId})</h1>`);
    const setup = new URL(app.setupUrl);
    setup.searchParams.set('installation_id', String(installationId));
    setup.searchParams.set('setup_action', existing ? 'update' : 'install');
    const state = form.get('state');
    if (state) setup.searchParams.set('state', state);
    return { status: 302, body: '', headers: { location: setup.href } };
  };

  const selectRepositoriesOf = async (
    installation: StandInInstallation,
    change: { add?: readonly string[]; remove?: readonly string[]; selection?: 'all' | 'selected'; by: string },
  ): Promise<WebhookDelivery | undefined> => {
    const account = accountOf(installation.account.login);
    const added = account ? repositoriesOf(account, change.add ?? []) : [];
    const removedNames = (change.remove ?? []).map((name) => `${installation.account.login}/${name}`);
    const removed = hosting.repositories(installation.id).filter((r) => removedNames.some((n) => n.toLowerCase() === String(r.full_name).toLowerCase()));
    if (change.selection) installation.repositorySelection = change.selection;
    if (added.length === 0 && removed.length === 0) return undefined;
    hosting.host(installation.id, added);
    hosting.unhost(
      installation.id,
      removed.map((r) => String(r.full_name)),
    );
    installation.updatedAt = iso();
    const addedJson = hosting
      .repositories(installation.id)
      .filter((r) => added.some((a) => `${a.owner}/${a.name}`.toLowerCase() === String(r.full_name).toLowerCase()));
    // One delivery per action, as GitHub sends them: a change that adds and removes sends both.
    let last: WebhookDelivery | undefined;
    for (const [action, repositories] of [
      ['added', addedJson],
      ['removed', removed],
    ] as const) {
      if (repositories.length === 0) continue;
      last = await deliver('installation_repositories', {
        action,
        installation: installationJson(installation),
        repository_selection: installation.repositorySelection,
        repositories_added: action === 'added' ? repositories.map(shortRepository) : [],
        repositories_removed: action === 'removed' ? repositories.map(shortRepository) : [],
        requester: null,
        sender: sender(change.by),
      });
    }
    return last;
  };

  /** GET /user/installations and GET /user/installations/{id}/repositories, with a user access token. */
  const userRoutes = (req: IncomingMessage, url: URL): UserAuthAnswer | undefined => {
    if (req.method !== 'GET') return undefined;
    const repositoriesPath = /^\/user\/installations\/(\d+)\/repositories$/.exec(url.pathname);
    if (url.pathname !== '/user/installations' && !repositoriesPath) return undefined;
    const user = users.userOfToken(req.headers.authorization);
    if (!user) return users.refusal(req.headers.authorization);
    const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get('per_page') ?? 30) || 30));
    const pageNumber = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1);
    const pageOf = <T>(items: T[]): T[] => items.slice((pageNumber - 1) * perPage, pageNumber * perPage);
    if (!repositoriesPath) {
      const reachable = [...installations.values()].filter((installation) => reaches(user, installation));
      return { status: 200, body: { total_count: reachable.length, installations: pageOf(reachable).map(installationJson) } };
    }
    const installation = installations.get(Number(repositoriesPath[1]));
    if (!installation || !reaches(user, installation)) return notFound();
    const repositories = hosting.repositories(installation.id);
    return {
      status: 200,
      body: { total_count: repositories.length, repository_selection: installation.repositorySelection, repositories: pageOf(repositories) },
    };
  };

  return {
    async handle(req, url) {
      const method = req.method ?? 'GET';
      const slug = app ? `/apps/${app.slug}` : undefined;
      if (slug && method === 'GET' && url.pathname === `${slug}/installations/new`) return installPage(req, url);
      if (slug && method === 'POST' && url.pathname === `${slug}/installations`) return install(req);
      return userRoutes(req, url);
    },
    addAccount(account) {
      accounts.set(account.login.toLowerCase(), account);
    },
    record(id, accountLogin) {
      if (installations.has(id)) return;
      const at = iso();
      const type = accountOf(accountLogin)?.type ?? 'Organization';
      installations.set(id, {
        id,
        account: { login: accountLogin, id: accountId(accountLogin), type },
        repositorySelection: 'selected',
        suspendedAt: null,
        createdAt: at,
        updatedAt: at,
      });
      nextInstallationId = Math.max(nextInstallationId, id + 1);
    },
    get(installationId) {
      const installation = installations.get(installationId);
      return installation ? installationJson(installation) : undefined;
    },
    list: () => [...installations.values()].map((installation) => ({ ...installation, account: { ...installation.account } })),
    deliveries: () => sent.map((entry) => entry.delivery),
    async uninstall(installationId) {
      const installation = mustFind(installationId);
      const repositories = hosting.repositories(installationId).map(shortRepository);
      installations.delete(installationId);
      hosting.drop(installationId);
      return deliver('installation', {
        action: 'deleted',
        installation: installationJson(installation),
        repositories,
        requester: null,
        sender: sender(installation.account.login),
      });
    },
    async suspend(installationId, suspended) {
      const installation = mustFind(installationId);
      installation.suspendedAt = suspended ? iso() : null;
      installation.updatedAt = iso();
      return deliver('installation', {
        action: suspended ? 'suspend' : 'unsuspend',
        installation: installationJson(installation),
        repositories: hosting.repositories(installationId).map(shortRepository),
        requester: null,
        sender: sender(installation.account.login),
      });
    },
    selectRepositories: (installationId, change) => {
      const installation = mustFind(installationId);
      return selectRepositoriesOf(installation, { ...change, by: installation.account.login });
    },
    async renameRepository(fullName, to) {
      const installation = mustFind(hosting.installationOf(fullName));
      const [owner = '', name = ''] = fullName.split('/');
      const target = { owner: to.owner ?? owner, name: to.name ?? name };
      const before = hosting.rename(fullName, target);
      const renamed = hosting.repository(`${target.owner}/${target.name}`);
      const transferred = target.owner.toLowerCase() !== owner.toLowerCase();
      const changes = transferred
        ? { owner: { from: { [accountOf(owner)?.type === 'User' ? 'user' : 'organization']: sender(owner) } } }
        : { repository: { name: { from: before.name } } };
      return deliver('repository', {
        action: transferred ? 'transferred' : 'renamed',
        changes,
        repository: renamed,
        installation: { id: installation.id, node_id: `MDIz_${installation.id}` },
        sender: sender(installation.account.login),
      });
    },
    async setDefaultBranch(fullName, branch) {
      const installation = mustFind(hosting.installationOf(fullName));
      const before = hosting.repository(fullName);
      hosting.setDefaultBranch(fullName, branch);
      return deliver('repository', {
        action: 'edited',
        changes: { default_branch: { from: before.default_branch } },
        repository: hosting.repository(fullName),
        installation: { id: installation.id, node_id: `MDIz_${installation.id}` },
        sender: sender(installation.account.login),
      });
    },
    async redeliver(deliveryId) {
      const original = sent.find((entry) => entry.delivery.deliveryId === deliveryId);
      if (!original) throw new Error(`the stand-in sent no delivery ${deliveryId}`);
      const again = await sendWebhook(original.target, original.delivery.event, JSON.parse(original.delivery.body) as unknown, {
        deliveryId,
        body: original.delivery.body,
      });
      sent.push({ delivery: again, target: original.target });
      return again;
    },
  };
}
