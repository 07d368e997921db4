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

/** What the installations part is given: the App, Sign in with GitHub (the browser's user, user tokens), the hosting. */
export interface AppInstallationsOptions {
  app: StandInAppSettings | undefined;
  appId: string;
  users: UserAuth;
  hosting: InstallationHosting;
  apiUrl: () => string;
}

/** Whether the user reaches the installation: its account is theirs, or an organization they are an active member of. */
function reaches(user: StandInUser, installation: StandInInstallation): boolean {
  const login = installation.account.login.toLowerCase();
  if (installation.account.type === 'User') return user.login.toLowerCase() === login;
  return Object.entries(user.orgs ?? {}).some(([org, membership]) => org.toLowerCase() === login && membership.state === 'active');
}

/** A repository as installation webhooks list them (a short form). */
const shortRepository = (repository: Record<string, unknown>) => ({
  id: repository.id,
  node_id: repository.node_id,
  name: repository.name,
  full_name: repository.full_name,
  private: repository.private,
});
const sender = (login: string) => ({ login, id: accountId(login), node_id: `U_${accountId(login)}`, type: 'User', site_admin: false });
const repositoriesOf = (account: StandInAccount, names: readonly string[] | 'all') =>
  account.repositories
    .filter((repository) => names === 'all' || names.some((name) => name.toLowerCase() === repository.name.toLowerCase()))
    .map((repository) => ({ owner: account.login, ...repository }));

/** The install page's form: the accounts the user may install on, each with its repositories, all or a selection. */
function installForm(slug: string, state: string, accounts: StandInAccount[]): UserAuthAnswer {
  const choices = accounts
    .map((account) => {
      const repositories = account.repositories
        .map((r) => `<label><input type="checkbox" name="repositories" value="${escapeHtml(r.name)}"> ${escapeHtml(r.name)}</label>`)
        .join(' ');
      return `<fieldset><legend><label><input type="radio" name="account" value="${escapeHtml(account.login)}" required> ${escapeHtml(account.login)}</label></legend>${repositories}</fieldset>`;
    })
    .join('');
  return page(
    `Install ${slug}`,
    `<h1>Install ${escapeHtml(slug)}</h1><form method="post" action="/apps/${encodeURIComponent(slug)}/installations">
<input type="hidden" name="state" value="${escapeHtml(state)}">${choices}
<label><input type="radio" name="repository_selection" value="all" checked> All repositories</label>
<label><input type="radio" name="repository_selection" value="selected"> Only select repositories</label>
<button type="submit">Install</button></form>`,
  );
}

class StandInAppInstallations implements AppInstallations {
  private readonly accounts = new Map<string, StandInAccount>();
  private readonly installations = new Map<number, StandInInstallation>();
  private readonly sent: { delivery: WebhookDelivery; target: WebhookTarget }[] = [];
  private nextInstallationId = 70_001;

  constructor(private readonly options: AppInstallationsOptions) {}

  async handle(req: IncomingMessage, url: URL): Promise<UserAuthAnswer | undefined> {
    const { app } = this.options;
    const method = req.method ?? 'GET';
    const slug = app ? `/apps/${app.slug}` : undefined;
    if (slug && method === 'GET' && url.pathname === `${slug}/installations/new`) return this.installPage(req, url);
    if (slug && method === 'POST' && url.pathname === `${slug}/installations`) return this.install(req);
    return this.userRoutes(req, url);
  }

  addAccount(account: StandInAccount): void {
    this.accounts.set(account.login.toLowerCase(), account);
  }

  record(id: number, accountLogin: string): void {
    if (this.installations.has(id)) return;
    const at = iso();
    const type = this.accountOf(accountLogin)?.type ?? 'Organization';
    this.installations.set(id, {
      id,
      account: { login: accountLogin, id: accountId(accountLogin), type },
      repositorySelection: 'selected',
      suspendedAt: null,
      createdAt: at,
      updatedAt: at,
    });
    this.nextInstallationId = Math.max(this.nextInstallationId, id + 1);
  }

  get(installationId: number): Record<string, unknown> | undefined {
    const installation = this.installations.get(installationId);
    return installation ? this.installationJson(installation) : undefined;
  }

  list(): StandInInstallation[] {
    return [...this.installations.values()].map((installation) => ({ ...installation, account: { ...installation.account } }));
  }

  deliveries(): WebhookDelivery[] {
    return this.sent.map((entry) => entry.delivery);
  }

  async uninstall(installationId: number): Promise<WebhookDelivery | undefined> {
    const { hosting } = this.options;
    const installation = this.mustFind(installationId);
    const repositories = hosting.repositories(installationId).map(shortRepository);
    this.installations.delete(installationId);
    hosting.drop(installationId);
    return this.deliver('installation', {
      action: 'deleted',
      installation: this.installationJson(installation),
      repositories,
      requester: null,
      sender: sender(installation.account.login),
    });
  }

  async suspend(installationId: number, suspended: boolean): Promise<WebhookDelivery | undefined> {
    const installation = this.mustFind(installationId);
    installation.suspendedAt = suspended ? iso() : null;
    installation.updatedAt = iso();
    return this.deliver('installation', {
      action: suspended ? 'suspend' : 'unsuspend',
      installation: this.installationJson(installation),
      repositories: this.options.hosting.repositories(installationId).map(shortRepository),
      requester: null,
      sender: sender(installation.account.login),
    });
  }

  selectRepositories(installationId: number, change: { add?: string[]; remove?: string[] }): Promise<WebhookDelivery | undefined> {
    const installation = this.mustFind(installationId);
    return this.selectRepositoriesOf(installation, { ...change, by: installation.account.login });
  }

  async renameRepository(fullName: string, to: { owner?: string; name?: string }): Promise<WebhookDelivery | undefined> {
    const { hosting } = this.options;
    const installation = this.mustFind(hosting.installationOf(fullName));
    const [owner = '', name = ''] = fullName.split('/');
    const target = { owner: to.owner ?? owner, name: to.name ?? name };
    const before = hosting.rename(fullName, target);
    const renamed = hosting.repository(`${target.owner}/${target.name}`);
    const transferred = target.owner.toLowerCase() !== owner.toLowerCase();
    const changes = transferred
      ? { owner: { from: { [this.accountOf(owner)?.type === 'User' ? 'user' : 'organization']: sender(owner) } } }
      : { repository: { name: { from: before.name } } };
    return this.deliver('repository', {
      action: transferred ? 'transferred' : 'renamed',
      changes,
      repository: renamed,
      installation: { id: installation.id, node_id: `MDIz_${installation.id}` },
      sender: sender(installation.account.login),
    });
  }

  async setDefaultBranch(fullName: string, branch: string): Promise<WebhookDelivery | undefined> {
    const { hosting } = this.options;
    const installation = this.mustFind(hosting.installationOf(fullName));
    const before = hosting.repository(fullName);
    hosting.setDefaultBranch(fullName, branch);
    return this.deliver('repository', {
      action: 'edited',
      changes: { default_branch: { from: before.default_branch } },
      repository: hosting.repository(fullName),
      installation: { id: installation.id, node_id: `MDIz_${installation.id}` },
      sender: sender(installation.account.login),
    });
  }

  async redeliver(deliveryId: string): Promise<WebhookDelivery> {
    const original = this.sent.find((entry) => entry.delivery.deliveryId === deliveryId);
    if (!original) throw new Error(`the stand-in sent no delivery ${deliveryId}`);
    const again = await sendWebhook(original.target, original.delivery.event, JSON.parse(original.delivery.body) as unknown, {
      deliveryId,
      body: original.delivery.body,
    });
    this.sent.push({ delivery: again, target: original.target });
    return again;
  }

  private accountOf(login: string): StandInAccount | undefined {
    return this.accounts.get(login.toLowerCase());
  }

  private installationOfAccount(login: string): StandInInstallation | undefined {
    return [...this.installations.values()].find((installation) => installation.account.login.toLowerCase() === login.toLowerCase());
  }

  /** The accounts a user may install the App on: their own, and the organizations they administer. */
  private installableBy(user: StandInUser): StandInAccount[] {
    const own = this.accountOf(user.login) ?? { login: user.login, type: 'User' as const, repositories: [] };
    const administered = Object.entries(user.orgs ?? {})
      .filter(([, membership]) => membership.role === 'admin' && membership.state === 'active')
      .map(([org]) => this.accountOf(org) ?? { login: org, type: 'Organization' as const, repositories: [] });
    return [own, ...administered];
  }

  private installationJson(installation: StandInInstallation) {
    const { app, appId, apiUrl } = this.options;
    return {
      id: installation.id,
      account: {
        login: installation.account.login,
        id: installation.account.id,
        node_id: `${installation.account.type === 'User' ? 'U' : 'O'}_${installation.account.id}`,
        type: installation.account.type,
        site_admin: false,
      },
      repository_selection: installation.repositorySelection,
      access_tokens_url: `${apiUrl()}/app/installations/${installation.id}/access_tokens`,
      repositories_url: `${apiUrl()}/installation/repositories`,
      html_url: `https://github.com/settings/installations/${installation.id}`,
      app_id: Number(appId),
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
    };
  }

  private async deliver(event: string, payload: Record<string, unknown>): Promise<WebhookDelivery | undefined> {
    const { app } = this.options;
    if (!app?.webhook) return undefined;
    const delivery = await sendWebhook(app.webhook, event, payload);
    this.sent.push({ delivery, target: app.webhook });
    return delivery;
  }

  private mustFind(installationId: number): StandInInstallation {
    const installation = this.installations.get(installationId);
    if (!installation) throw new Error(`the stand-in has no installation ${installationId}`);
    return installation;
  }

  /** GET /apps/{slug}/installations/new: the browser's user (signed in first) picks an account and repositories. */
  private installPage(req: IncomingMessage, url: URL): UserAuthAnswer {
    const user = this.options.users.browserUser(req);
    if (!user) return this.options.users.signInPage(`${url.pathname}${url.search}`);
    return installForm(this.options.app?.slug ?? '', url.searchParams.get('state') ?? '', this.installableBy(user));
  }

  /** POST /apps/{slug}/installations: installs (or changes the selection of) the App on the account, then the Setup URL. */
  private async install(req: IncomingMessage): Promise<UserAuthAnswer> {
    const user = this.options.users.browserUser(req);
    const form = await formFields(req);
    if (!user) return page('Sign in', '<h1>Sign in to GitHub first.</h1>', 401);
    const account = this.installableBy(user).find((candidate) => candidate.login.toLowerCase() === (form.get('account') ?? '').toLowerCase());
    if (!account) return page('Not allowed', '<h1>You cannot install this App on that account.</h1>', 403);
    const selection = form.get('repository_selection') === 'selected' ? 'selected' : 'all';
    const chosen = repositoriesOf(account, selection === 'all' ? 'all' : form.getAll('repositories'));
    const existing = this.installationOfAccount(account.login);
    let installationId: number;
    if (existing) {
      installationId = existing.id;
      const before = new Set(this.options.hosting.repositories(existing.id).map((r) => String(r.full_name).toLowerCase()));
      const after = new Set(chosen.map((r) => `${r.owner}/${r.name}`.toLowerCase()));
      await this.selectRepositoriesOf(existing, {
        add: chosen.filter((r) => !before.has(`${r.owner}/${r.name}`.toLowerCase())).map((r) => r.name),
        remove: [...before].filter((fullName) => !after.has(fullName)).map((fullName) => fullName.split('/')[1] ?? ''),
        selection,
        by: user.login,
      });
    } else {
      installationId = await this.installOn(account, selection, chosen, user.login);
    }
    const { app } = this.options;
    if (!app?.setupUrl) return page('Installed', `<h1>Installed (installation ${installationId})</h1>`);
    const setup = new URL(app.setupUrl);
    setup.searchParams.set('installation_id', String(installationId));
    setup.searchParams.set('setup_action', existing ? 'update' : 'install');
    const state = form.get('state');
    if (state) setup.searchParams.set('state', state);
    return { status: 302, body: '', headers: { location: setup.href } };
  }

  /** A new installation on the account, hosting the chosen repositories: `installation` `created`. Answers its id. */
  private async installOn(account: StandInAccount, selection: 'all' | 'selected', chosen: ReturnType<typeof repositoriesOf>, by: string): Promise<number> {
    const installationId = this.nextInstallationId++;
    const at = iso();
    const installation: StandInInstallation = {
      id: installationId,
      account: { login: account.login, id: accountId(account.login), type: account.type },
      repositorySelection: selection,
      suspendedAt: null,
      createdAt: at,
      updatedAt: at,
    };
    this.installations.set(installationId, installation);
    this.options.hosting.host(installationId, chosen);
    await this.deliver('installation', {
      action: 'created',
      installation: this.installationJson(installation),
      repositories: this.options.hosting.repositories(installationId).map(shortRepository),
      requester: null,
      sender: sender(by),
    });
    return installationId;
  }

  private async selectRepositoriesOf(
    installation: StandInInstallation,
    change: { add?: readonly string[]; remove?: readonly string[]; selection?: 'all' | 'selected'; by: string },
  ): Promise<WebhookDelivery | undefined> {
    const { hosting } = this.options;
    const account = this.accountOf(installation.account.login);
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
      last = await this.deliver('installation_repositories', {
        action,
        installation: this.installationJson(installation),
        repository_selection: installation.repositorySelection,
        repositories_added: action === 'added' ? repositories.map(shortRepository) : [],
        repositories_removed: action === 'removed' ? repositories.map(shortRepository) : [],
        requester: null,
        sender: sender(change.by),
      });
    }
    return last;
  }

  /** GET /user/installations and GET /user/installations/{id}/repositories, with a user access token. */
  private userRoutes(req: IncomingMessage, url: URL): UserAuthAnswer | undefined {
    if (req.method !== 'GET') return undefined;
    const repositoriesPath = /^\/user\/installations\/(\d+)\/repositories$/.exec(url.pathname);
    if (url.pathname !== '/user/installations' && !repositoriesPath) return undefined;
    const user = this.options.users.userOfToken(req.headers.authorization);
    if (!user) return this.options.users.refusal(req.headers.authorization);
    const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get('per_page') ?? 30) || 30));
    const pageNumber = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1);
    const pageOf = <T>(items: T[]): T[] => items.slice((pageNumber - 1) * perPage, pageNumber * perPage);
    if (!repositoriesPath) {
      const reachable = [...this.installations.values()].filter((installation) => reaches(user, installation));
      return {
        status: 200,
        body: { total_count: reachable.length, installations: pageOf(reachable).map((installation) => this.installationJson(installation)) },
      };
    }
    const installation = this.installations.get(Number(repositoriesPath[1]));
    if (!installation || !reaches(user, installation)) return notFound();
    const repositories = this.options.hosting.repositories(installation.id);
    return {
      status: 200,
      body: { total_count: repositories.length, repository_selection: installation.repositorySelection, repositories: pageOf(repositories) },
    };
  }
}

export function createAppInstallations(options: AppInstallationsOptions): AppInstallations {
  return new StandInAppInstallations(options);
}
