// A stateful stand-in for the GitHub REST API paths the GitHub App source host calls, answering with
// GitHub's field names and refusals, checking App JWTs like GitHub, with a control plane for tests.
import { createHash, randomBytes, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { checkAppJwt, type AppJwtCheck } from './appJwt.js';
import { rightSideLines } from './diffLines.js';
import { sendWebhook, type WebhookDelivery, type WebhookTarget } from './webhooks.js';
import { createUserAuth, type StandInOAuthApp, type StandInUser } from './userAuth.js';
import { createAppInstallations, type StandInAccount, type StandInAppSettings, type StandInInstallation } from './appInstallations.js';

export interface StandInRepository {
  owner: string;
  name: string;
  defaultBranch: string;
  /**
   * The repository's `clone_url` wherever it is answered (e.g. the `file://` URL of a local bare
   * repository, so a sandbox can really clone it); default `https://github.com/<owner>/<name>.git`.
   */
  cloneUrl?: string;
}

/** A changed file of a pull request, GitHub's names; additions and deletions are counted from the patch when left out. */
export interface StandInPullRequestFile {
  filename: string;
  status?: 'added' | 'removed' | 'modified' | 'renamed' | 'copied' | 'changed' | 'unchanged';
  previous_filename?: string;
  additions?: number;
  deletions?: number;
  /** The hunks from the first `@@`; null for a binary file. */
  patch: string | null;
}

export interface NewStandInPullRequest {
  title: string;
  head: { ref: string; sha: string };
  base: { ref: string; sha: string };
  files: StandInPullRequestFile[];
  /** The author's login; default `octocat`. */
  user?: string;
}

export interface StandInPullRequest {
  number: number;
  title: string;
  state: 'open' | 'closed';
  merged: boolean;
  head: { ref: string; sha: string };
  base: { ref: string; sha: string };
  files: Required<Omit<StandInPullRequestFile, 'previous_filename'>>[];
  user: string;
}

export interface StandInAnnotation {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: 'notice' | 'warning' | 'failure';
  message: string;
  title?: string;
}

export interface StandInCheckRun {
  id: number;
  name: string;
  head_sha: string;
  external_id: string | null;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: string | null;
  details_url: string | null;
  started_at: string;
  completed_at: string | null;
  output: { title: string | null; summary: string | null; text: string | null };
  annotations: StandInAnnotation[];
  /** Requests that carried annotations, and how many each carried. */
  annotationBatches: number[];
}

export interface StandInReview {
  id: number;
  pull_number: number;
  commit_id: string;
  body: string;
  event: string;
  state: string;
  user: string;
}

export interface StandInReviewComment {
  id: number;
  pull_number: number;
  pull_request_review_id: number | null;
  commit_id: string;
  path: string;
  line: number | null;
  side: 'RIGHT' | 'LEFT';
  body: string;
  in_reply_to_id: number | null;
  user: string;
  created_at: string;
  updated_at: string;
}

/** The next `times` requests matching the method and path are answered with `status` instead. */
export interface StandInFault {
  method: string;
  /** The exact request path (no query), or a pattern tested against it. */
  path: string | RegExp;
  status: 403 | 404 | 422 | 429 | 500 | 502 | 503;
  /** Default 1. */
  times?: number;
  /** Sent as `Retry-After`. */
  retryAfterSeconds?: number;
  /** A 403 of an exhausted primary rate limit: `x-ratelimit-remaining: 0` and `x-ratelimit-reset`. */
  rateLimitExhausted?: boolean;
  message?: string;
}

export interface GitHubStandInOptions {
  appId: string;
  publicKey: KeyObject;
  /** Repositories by GitHub installation id. */
  installations?: Record<number, StandInRepository[]>;
  /** The App's bot login that writes check runs, reviews and comments; default `agent-run-service[bot]`. */
  botLogin?: string;
  /** The App's OAuth credentials: "Sign in with GitHub" (the web flow on this same server, `/login/oauth/*`). */
  oauthApp?: StandInOAuthApp;
  /** GitHub users who can sign in (the stand-in's sign-in form takes any password). */
  users?: StandInUser[];
  /** The App's slug, Setup URL and webhook: installing it through `/apps/{slug}/installations/new`. */
  app?: StandInAppSettings;
  /** Accounts the App can be installed on, with their repositories (the install page offers them). */
  accounts?: StandInAccount[];
}

export type StandInWebhook =
  | { event: 'pull_request'; action: 'opened' | 'synchronize'; fullName: string; number: number; before?: string }
  | { event: 'check_run'; action: 'rerequested'; fullName: string; checkRunId: number };

export interface GitHubStandIn {
  url: string;
  /** Installation access tokens minted, in order. */
  minted: { installationId: number; token: string }[];
  /** Every App JWT presented, with what the check found. */
  jwts: AppJwtCheck[];
  /** Requests seen, `METHOD path?query`. */
  requests: string[];
  addInstallation(installationId: number, repositories: StandInRepository[]): void;
  /** Opens a pull request in a repository of an installation; answers its number (1, 2, … per repository). */
  openPullRequest(fullName: string, pr: NewStandInPullRequest): number;
  /** A push to the head branch: a new head SHA and, when given, the files the diff now shows. Answers the SHA before. */
  pushHead(fullName: string, number: number, head: { sha: string; files?: StandInPullRequestFile[] }): string;
  closePullRequest(fullName: string, number: number, options?: { merged?: boolean }): void;
  /**
   * The whole tree of a commit, file text by `/`-separated path (directories are implied by the
   * paths), served by `GET …/contents/{path}?ref=`; the commit becomes one the repository knows.
   */
  setCommitFiles(fullName: string, sha: string, files: Record<string, string>): void;
  pullRequest(fullName: string, number: number): StandInPullRequest | undefined;
  checkRuns(fullName: string): StandInCheckRun[];
  reviews(fullName: string, number: number): StandInReview[];
  reviewComments(fullName: string, number: number): StandInReviewComment[];
  /** Adds a comment as someone else (a person replying in a thread). */
  addReviewComment(fullName: string, number: number, comment: { user: string; body: string; inReplyTo?: number; path?: string; line?: number }): number;
  failNext(fault: StandInFault): void;
  /** GitHub's web host too (`/login/oauth/authorize`, `/login/oauth/access_token`): the same server here. */
  webUrl: string;
  addUser(user: StandInUser): void;
  /** User access tokens minted by the web flow (and refreshes), in order. */
  userTokens(): { login: string; token: string }[];
  /** The end of the web flow without a browser: the user authorized the App; their tokens (see UserAuth.authorizeUser). */
  authorizeUser(login: string): { accessToken: string; refreshToken: string; refreshTokenExpiresIn: number };
  revokeUserTokens(login: string): void;
  forgetAuthorization(login: string): void;
  /** Sends a signed webhook with GitHub's payload for the event, built from the stand-in's state. */
  deliverWebhook(target: WebhookTarget, webhook: StandInWebhook): Promise<WebhookDelivery>;
  addAccount(account: StandInAccount): void;
  /** Every installation, made by the install page or given. */
  installations(): StandInInstallation[];
  /** The App's webhook deliveries (installation events and changes made below), in order. */
  appDeliveries(): WebhookDelivery[];
  /** What an account owner does on GitHub; each sends its webhook to the App's (when it has one). */
  uninstall(installationId: number): Promise<WebhookDelivery | undefined>;
  suspendInstallation(installationId: number, suspended: boolean): Promise<WebhookDelivery | undefined>;
  selectRepositories(installationId: number, change: { add?: string[]; remove?: string[] }): Promise<WebhookDelivery | undefined>;
  renameRepository(fullName: string, to: { owner?: string; name?: string }): Promise<WebhookDelivery | undefined>;
  setDefaultBranch(fullName: string, branch: string): Promise<WebhookDelivery | undefined>;
  /** GitHub's "Redeliver": the same delivery (id and body) again. */
  redeliver(deliveryId: string): Promise<WebhookDelivery>;
  close(): Promise<void>;
}

interface HostedRepository {
  installationId: number;
  id: number;
  repo: StandInRepository;
  pulls: StandInPullRequest[];
  checkRuns: StandInCheckRun[];
  reviews: StandInReview[];
  comments: StandInReviewComment[];
  /** Every head and base SHA its pull requests have had: the commits it knows (an old head stays known after a push). */
  commits: Set<string>;
  /** The files of the commits given them (`setCommitFiles`), by SHA, then by path. */
  trees: Map<string, Map<string, string>>;
}

class HttpAnswer extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(`HTTP ${status}`);
  }
}

const DOCS = 'https://docs.github.com/rest';
const MAX_ANNOTATIONS = 50;
const MAX_TEXT = 65_535;
/** GitHub's contents JSON carries a file's content up to 1 MB; past that `content` is empty and `encoding` is `none`. */
const MAX_CONTENT_JSON = 1024 * 1024;
const notFound = () => new HttpAnswer(404, { message: 'Not Found', documentation_url: DOCS, status: '404' });
const invalid = (message: string, errors: unknown[] = []) => new HttpAnswer(422, { message, errors, documentation_url: DOCS, status: '422' });
const iso = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Additions and deletions a patch shows. */
function countLines(patch: string | null): { additions: number; deletions: number } {
  let additions = 0;
  let deletions = 0;
  for (const line of (patch ?? '').split('\n')) {
    if (line.startsWith('+')) additions += 1;
    else if (line.startsWith('-')) deletions += 1;
  }
  return { additions, deletions };
}

export async function startGitHubStandIn(options: GitHubStandInOptions): Promise<GitHubStandIn> {
  const minted: GitHubStandIn['minted'] = [];
  const jwts: AppJwtCheck[] = [];
  const requests: string[] = [];
  const faults: (StandInFault & { left: number })[] = [];
  const installations = new Map<number, HostedRepository[]>();
  const botLogin = options.botLogin ?? 'agent-run-service[bot]';
  const userAuth = createUserAuth(options.oauthApp, options.users ?? []);
  let nextId = 1;
  let repositoryCount = 0;
  let baseUrl = '';

  const hostRepositories = (installationId: number, repositories: StandInRepository[]): void => {
    const hosted = installations.get(installationId) ?? [];
    for (const repo of repositories) {
      hosted.push({
        installationId,
        // GitHub's repository id: never reused, also after a repository left the installation.
        id: installationId * 100_000 + ++repositoryCount,
        repo,
        pulls: [],
        checkRuns: [],
        reviews: [],
        comments: [],
        commits: new Set(),
        trees: new Map(),
      });
    }
    installations.set(installationId, hosted);
  };
  const addInstallation = (installationId: number, repositories: StandInRepository[]): void => {
    hostRepositories(installationId, repositories);
    appInstallations.record(installationId, repositories[0]?.owner ?? `account-${installationId}`);
  };

  const hostedRepository = (fullName: string): HostedRepository => {
    for (const hosted of installations.values()) {
      const found = hosted.find((h) => `${h.repo.owner}/${h.repo.name}`.toLowerCase() === fullName.toLowerCase());
      if (found) return found;
    }
    throw new Error(`the stand-in has no repository ${fullName}`);
  };
  const appInstallations = createAppInstallations({
    app: options.app,
    appId: options.appId,
    users: userAuth,
    apiUrl: () => baseUrl,
    hosting: {
      repositories: (installationId) => (installations.get(installationId) ?? []).map(repositoryJson),
      host: (installationId, repositories) => hostRepositories(installationId, repositories),
      unhost: (installationId, fullNames) => {
        const gone = new Set(fullNames.map((name) => name.toLowerCase()));
        installations.set(
          installationId,
          (installations.get(installationId) ?? []).filter((hosted) => !gone.has(fullNameOf(hosted).toLowerCase())),
        );
      },
      drop: (installationId) => void installations.delete(installationId),
      rename: (fullName, to) => {
        const hosted = hostedRepository(fullName);
        const before = repositoryJson(hosted);
        hosted.repo = { ...hosted.repo, owner: to.owner, name: to.name };
        return before;
      },
      setDefaultBranch: (fullName, branch) => {
        const hosted = hostedRepository(fullName);
        hosted.repo = { ...hosted.repo, defaultBranch: branch };
      },
      installationOf: (fullName) => hostedRepository(fullName).installationId,
      repository: (fullName) => repositoryJson(hostedRepository(fullName)),
    },
  });
  for (const account of options.accounts ?? []) appInstallations.addAccount(account);
  for (const [id, repositories] of Object.entries(options.installations ?? {})) addInstallation(Number(id), repositories);

  const pull = (hosted: HostedRepository, number: number): StandInPullRequest => {
    const pr = hosted.pulls.find((p) => p.number === number);
    if (!pr) throw notFound();
    return pr;
  };
  const withCounts = (files: StandInPullRequestFile[]): StandInPullRequest['files'] =>
    files.map((f) => ({ filename: f.filename, status: f.status ?? 'modified', ...countLines(f.patch), ...definedCounts(f), patch: f.patch }));

  // ---- GitHub's JSON shapes -------------------------------------------------------------------
  const user = (login: string) => ({
    login,
    id: login.length * 1000 + 7,
    node_id: `U_${login}`,
    type: login.endsWith('[bot]') ? 'Bot' : 'User',
    site_admin: false,
  });
  const repositoryJson = (hosted: HostedRepository) => {
    const { owner, name, defaultBranch, cloneUrl } = hosted.repo;
    return {
      id: hosted.id,
      node_id: Buffer.from(`R_${hosted.id}`).toString('base64'),
      name,
      full_name: `${owner}/${name}`,
      private: true,
      owner: { login: owner, id: 1000, node_id: 'O_1000', type: 'Organization', site_admin: false },
      html_url: `https://github.com/${owner}/${name}`,
      description: null,
      fork: false,
      url: `${baseUrl}/repos/${owner}/${name}`,
      git_url: `git://github.com/${owner}/${name}.git`,
      ssh_url: `git@github.com:${owner}/${name}.git`,
      clone_url: cloneUrl ?? `https://github.com/${owner}/${name}.git`,
      default_branch: defaultBranch,
      visibility: 'private',
      archived: false,
      disabled: false,
      permissions: { admin: false, maintain: false, push: true, triage: false, pull: true },
    };
  };
  const fullNameOf = (hosted: HostedRepository) => `${hosted.repo.owner}/${hosted.repo.name}`;
  const pullJson = (hosted: HostedRepository, pr: StandInPullRequest) => {
    const fullName = fullNameOf(hosted);
    const branch = (b: { ref: string; sha: string }) => ({
      label: `${hosted.repo.owner}:${b.ref}`,
      ref: b.ref,
      sha: b.sha,
      user: user(hosted.repo.owner),
      repo: repositoryJson(hosted),
    });
    return {
      url: `${baseUrl}/repos/${fullName}/pulls/${pr.number}`,
      id: hosted.id * 1000 + pr.number,
      node_id: `PR_${hosted.id}_${pr.number}`,
      html_url: `https://github.com/${fullName}/pull/${pr.number}`,
      diff_url: `https://github.com/${fullName}/pull/${pr.number}.diff`,
      number: pr.number,
      state: pr.state,
      locked: false,
      title: pr.title,
      user: user(pr.user),
      body: null,
      draft: false,
      merged: pr.merged,
      merged_at: pr.merged ? iso() : null,
      mergeable: pr.state === 'open' ? true : null,
      head: branch(pr.head),
      base: branch(pr.base),
      commits: 1,
      additions: pr.files.reduce((n, f) => n + f.additions, 0),
      deletions: pr.files.reduce((n, f) => n + f.deletions, 0),
      changed_files: pr.files.length,
    };
  };
  const checkRunJson = (hosted: HostedRepository, run: StandInCheckRun) => {
    const fullName = fullNameOf(hosted);
    return {
      id: run.id,
      node_id: `CR_${run.id}`,
      head_sha: run.head_sha,
      external_id: run.external_id,
      url: `${baseUrl}/repos/${fullName}/check-runs/${run.id}`,
      html_url: `https://github.com/${fullName}/runs/${run.id}`,
      details_url: run.details_url,
      status: run.status,
      conclusion: run.conclusion,
      started_at: run.started_at,
      completed_at: run.completed_at,
      output: { ...run.output, annotations_count: run.annotations.length, annotations_url: `${baseUrl}/repos/${fullName}/check-runs/${run.id}/annotations` },
      name: run.name,
      check_suite: { id: hosted.id * 10 + 1 },
      app: { id: 1, slug: botLogin.replace(/\[bot\]$/, ''), name: botLogin },
      pull_requests: hosted.pulls
        .filter((p) => p.state === 'open' && p.head.sha === run.head_sha)
        .map((p) => ({
          number: p.number,
          url: `${baseUrl}/repos/${fullName}/pulls/${p.number}`,
          head: { ref: p.head.ref, sha: p.head.sha },
          base: { ref: p.base.ref, sha: p.base.sha },
        })),
    };
  };
  const commentJson = (hosted: HostedRepository, c: StandInReviewComment) => {
    const fullName = fullNameOf(hosted);
    return {
      url: `${baseUrl}/repos/${fullName}/pulls/comments/${c.id}`,
      id: c.id,
      node_id: `PRRC_${c.id}`,
      pull_request_review_id: c.pull_request_review_id,
      diff_hunk: '',
      path: c.path,
      commit_id: c.commit_id,
      original_commit_id: c.commit_id,
      user: user(c.user),
      body: c.body,
      created_at: c.created_at,
      updated_at: c.updated_at,
      html_url: `https://github.com/${fullName}/pull/${c.pull_number}#discussion_r${c.id}`,
      pull_request_url: `${baseUrl}/repos/${fullName}/pulls/${c.pull_number}`,
      ...(c.in_reply_to_id === null ? {} : { in_reply_to_id: c.in_reply_to_id }),
      line: c.line,
      original_line: c.line,
      side: c.side,
      start_line: null,
      subject_type: 'line',
    };
  };
  const diffOf = (pr: StandInPullRequest): string =>
    pr.files
      .map((f) => {
        const from = f.status === 'added' ? '/dev/null' : `a/${f.filename}`;
        const to = f.status === 'removed' ? '/dev/null' : `b/${f.filename}`;
        const body = f.patch === null ? `Binary files ${from} and ${to} differ` : `--- ${from}\n+++ ${to}\n${f.patch}`;
        return `diff --git a/${f.filename} b/${f.filename}\n${body}\n`;
      })
      .join('');

  /** The commit a ref names: a SHA given files, a pull request's head branch (the newest such), its base branch, or a known SHA; else null. */
  const commitOfRef = (hosted: HostedRepository, ref: string): string | null => {
    if (hosted.trees.has(ref)) return ref;
    const newestFirst = [...hosted.pulls].sort((a, b) => b.number - a.number);
    const branch = newestFirst.find((p) => p.head.ref === ref)?.head.sha ?? newestFirst.find((p) => p.base.ref === ref)?.base.sha;
    return branch ?? (hosted.commits.has(ref) ? ref : null);
  };
  /** A `contents` entry as GitHub answers it: a file asked for alone carries its base64 content; a directory's array lists entries without it. */
  const contentJson = (hosted: HostedRepository, ref: string, path: string, type: 'file' | 'dir', text: string | undefined, alone: boolean) => {
    const fullName = fullNameOf(hosted);
    const bytes = Buffer.from(text ?? '', 'utf8');
    const sha =
      type === 'file'
        ? createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex')
        : createHash('sha1').update(`tree ${ref}:${path}`).digest('hex');
    const self = `${baseUrl}/repos/${fullName}/contents/${path}?ref=${encodeURIComponent(ref)}`;
    const git = `${baseUrl}/repos/${fullName}/git/${type === 'file' ? 'blobs' : 'trees'}/${sha}`;
    const html = `https://github.com/${fullName}/${type === 'file' ? 'blob' : 'tree'}/${ref}/${path}`;
    const entry = {
      type,
      size: type === 'file' ? bytes.length : 0,
      name: path.slice(path.lastIndexOf('/') + 1),
      path,
      sha,
      url: self,
      git_url: git,
      html_url: html,
      download_url: type === 'file' ? `https://raw.githubusercontent.com/${fullName}/${ref}/${path}` : null,
      _links: { self, git, html },
    };
    if (!alone || type !== 'file') return entry;
    // GitHub wraps the base64 at 60 characters, each line ending in a newline.
    const content = bytes.length > MAX_CONTENT_JSON ? '' : (bytes.toString('base64').match(/.{1,60}/g) ?? []).map((line) => `${line}\n`).join('');
    return { ...entry, content, encoding: bytes.length > MAX_CONTENT_JSON ? 'none' : 'base64' };
  };

  // ---- requests -------------------------------------------------------------------------------
  const readBody = async (req: IncomingMessage): Promise<Record<string, unknown>> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    if (text === '') return {};
    try {
      const parsed: unknown = JSON.parse(text);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    } catch {
      // answered below
    }
    throw new HttpAnswer(400, { message: 'Problems parsing JSON', documentation_url: DOCS, status: '400' });
  };
  const page = <T>(url: URL, items: T[]): { items: T[]; headers: Record<string, string> } => {
    const perPage = Math.max(1, Math.min(100, Number(url.searchParams.get('per_page') ?? 30)));
    const number = Math.max(1, Number(url.searchParams.get('page') ?? 1));
    const last = Math.max(1, Math.ceil(items.length / perPage));
    const at = (p: number) => {
      const next = new URL(url.toString());
      next.searchParams.set('page', String(p));
      return `<${baseUrl}${next.pathname}${next.search}>`;
    };
    const links = [
      ...(number < last ? [`${at(number + 1)}; rel="next"`, `${at(last)}; rel="last"`] : []),
      ...(number > 1 ? [`${at(1)}; rel="first"`, `${at(number - 1)}; rel="prev"`] : []),
    ];
    const headers: Record<string, string> = links.length > 0 ? { link: links.join(', ') } : {};
    return { items: items.slice((number - 1) * perPage, number * perPage), headers };
  };
  const installationOf = (authorization: string): number => {
    const token = /^(?:token|bearer) (.+)$/i.exec(authorization)?.[1];
    const grant = minted.find((m) => m.token === token);
    if (!grant) throw new HttpAnswer(401, { message: 'Bad credentials', documentation_url: DOCS, status: '401' });
    return grant.installationId;
  };
  /** The repository, when the token's installation reaches it (GitHub answers 404 otherwise). */
  const reachable = (installationId: number, owner: string, name: string): HostedRepository => {
    const hosted = (installations.get(installationId) ?? []).find(
      (h) => h.repo.owner.toLowerCase() === owner.toLowerCase() && h.repo.name.toLowerCase() === name.toLowerCase(),
    );
    if (!hosted) throw notFound();
    return hosted;
  };

  const applyCheckRunOutput = (run: StandInCheckRun, output: unknown): void => {
    if (output === undefined) return;
    const o = output as { title?: unknown; summary?: unknown; text?: unknown; annotations?: unknown };
    if (typeof o.title !== 'string' || typeof o.summary !== 'string') throw invalid('Invalid request.\n\n"title", "summary" weren\'t supplied.');
    if (o.summary.length > MAX_TEXT)
      throw invalid('Invalid request.\n\nOnly 65535 characters are allowed; 65536 were supplied.', [
        { resource: 'CheckRun', field: 'summary', code: 'custom' },
      ]);
    if (typeof o.text === 'string' && o.text.length > MAX_TEXT)
      throw invalid('Invalid request.\n\nOnly 65535 characters are allowed.', [{ resource: 'CheckRun', field: 'text', code: 'custom' }]);
    const annotations = Array.isArray(o.annotations) ? (o.annotations as StandInAnnotation[]) : [];
    if (annotations.length > MAX_ANNOTATIONS)
      throw invalid('Invalid request.\n\nOnly 50 annotations are allowed per request.', [{ resource: 'CheckRun', field: 'annotations', code: 'custom' }]);
    for (const a of annotations) {
      if (
        typeof a.path !== 'string' ||
        typeof a.start_line !== 'number' ||
        typeof a.end_line !== 'number' ||
        !['notice', 'warning', 'failure'].includes(a.annotation_level) ||
        typeof a.message !== 'string'
      ) {
        throw invalid('Invalid request.\n\nAn annotation is missing path, start_line, end_line, annotation_level or message.');
      }
    }
    run.output = { title: o.title, summary: o.summary, text: typeof o.text === 'string' ? o.text : run.output.text };
    run.annotations.push(...annotations);
    if (annotations.length > 0) run.annotationBatches.push(annotations.length);
  };
  const applyStatus = (run: StandInCheckRun, body: Record<string, unknown>): void => {
    if (body.status !== undefined) {
      if (!['queued', 'in_progress', 'completed'].includes(String(body.status))) throw invalid('Invalid request.\n\nstatus is not a member of the enum.');
      run.status = body.status as StandInCheckRun['status'];
    }
    if (body.conclusion !== undefined) {
      if (!['success', 'failure', 'neutral', 'cancelled', 'skipped', 'timed_out', 'action_required'].includes(String(body.conclusion)))
        throw invalid('Invalid request.\n\nconclusion is not a member of the enum.');
      run.conclusion = String(body.conclusion);
      run.status = 'completed';
    }
    if (run.status === 'completed' && run.conclusion === null) throw invalid('Invalid request.\n\n"conclusion" wasn\'t supplied.');
    if (run.status === 'completed' && run.completed_at === null) run.completed_at = iso();
  };

  /** The App authenticates as itself with an RS256 JWT (`iss` its id), as the `/app/…` routes require. */
  const requireAppJwt = (req: IncomingMessage): void => {
    const jwt = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (!jwt) throw new HttpAnswer(401, { message: 'A JSON web token could not be decoded', documentation_url: DOCS, status: '401' });
    const check = checkAppJwt(jwt, options.appId, options.publicKey);
    jwts.push(check);
    if (!check.valid)
      throw new HttpAnswer(401, {
        message: `'Issuer' claim ('iss') must be an Integer or the JWT is invalid: ${check.reason ?? ''}`,
        documentation_url: DOCS,
        status: '401',
      });
  };

  type Route = (
    m: string[],
    ctx: { req: IncomingMessage; url: URL; installationId: () => number },
  ) => Promise<{ status: number; body: unknown; headers?: Record<string, string> }>;
  const routes: [string, RegExp, Route][] = [
    [
      'POST',
      /^\/app\/installations\/(\d+)\/access_tokens$/,
      async (m, { req }) => {
        requireAppJwt(req);
        const installationId = Number(m[1]);
        if (!installations.has(installationId)) throw notFound();
        if (appInstallations.list().find((installation) => installation.id === installationId)?.suspendedAt)
          throw new HttpAnswer(403, { message: 'This installation has been suspended', documentation_url: DOCS, status: '403' });
        const token = `ghs_${randomBytes(18).toString('hex')}`;
        minted.push({ installationId, token });
        return {
          status: 201,
          body: {
            token,
            expires_at: new Date(Date.now() + 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
            permissions: { checks: 'write', contents: 'write', metadata: 'read', pull_requests: 'write' },
            repository_selection: 'selected',
          },
        };
      },
    ],
    [
      'GET',
      /^\/app\/installations\/(\d+)$/,
      async (m, { req }) => {
        requireAppJwt(req);
        const installation = appInstallations.get(Number(m[1]));
        if (!installation) throw notFound();
        return { status: 200, body: installation };
      },
    ],
    [
      'GET',
      /^\/installation\/repositories$/,
      async (_m, { url, installationId }) => {
        const all = installations.get(installationId()) ?? [];
        const { items, headers } = page(url, all);
        return { status: 200, body: { total_count: all.length, repository_selection: 'selected', repositories: items.map(repositoryJson) }, headers };
      },
    ],
    [
      'GET',
      /^\/repos\/([^/]+)\/([^/]+)$/,
      async (m, { installationId }) => ({ status: 200, body: repositoryJson(reachable(installationId(), m[1] ?? '', m[2] ?? '')) }),
    ],
    [
      'GET',
      /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)$/,
      async (m, { req, installationId }) => {
        const hosted = reachable(installationId(), m[1] ?? '', m[2] ?? '');
        const pr = pull(hosted, Number(m[3]));
        if ((req.headers.accept ?? '').includes('application/vnd.github.diff')) {
          return { status: 200, body: diffOf(pr), headers: { 'content-type': 'application/vnd.github.diff; charset=utf-8' } };
        }
        return { status: 200, body: pullJson(hosted, pr) };
      },
    ],
    [
      'GET',
      /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)\/files$/,
      async (m, { url, installationId }) => {
        const pr = pull(reachable(installationId(), m[1] ?? '', m[2] ?? ''), Number(m[3]));
        const { items, headers } = page(url, pr.files);
        return {
          status: 200,
          body: items.map((f) => ({
            sha: randomBytes(20).toString('hex'),
            filename: f.filename,
            status: f.status,
            additions: f.additions,
            deletions: f.deletions,
            changes: f.additions + f.deletions,
            blob_url: `https://github.com/${m[1]}/${m[2]}/blob/${pr.head.sha}/${f.filename}`,
            ...(f.patch === null ? {} : { patch: f.patch }),
          })),
          headers,
        };
      },
    ],
    [
      'GET',
      /^\/repos\/([^/]+)\/([^/]+)\/contents(?:\/(.*))?$/,
      async (m, { url, installationId }) => {
        const hosted = reachable(installationId(), m[1] ?? '', m[2] ?? '');
        const ref = url.searchParams.get('ref') ?? hosted.repo.defaultBranch;
        const sha = commitOfRef(hosted, ref);
        if (sha === null) throw new HttpAnswer(404, { message: `No commit found for the ref ${ref}`, documentation_url: DOCS, status: '404' });
        const tree = hosted.trees.get(sha) ?? new Map<string, string>();
        const path = (m[3] ?? '').replace(/\/+$/, '');
        const text = tree.get(path);
        if (text !== undefined) return { status: 200, body: contentJson(hosted, ref, path, 'file', text, true) };
        const prefix = path === '' ? '' : `${path}/`;
        const children = new Map<string, 'file' | 'dir'>();
        for (const filePath of tree.keys()) {
          if (!filePath.startsWith(prefix)) continue;
          const [name = '', ...deeper] = filePath.slice(prefix.length).split('/');
          children.set(name, deeper.length > 0 ? 'dir' : 'file');
        }
        if (children.size === 0 && path !== '') throw notFound();
        const entries = [...children].sort(([a], [b]) => (a < b ? -1 : 1));
        return {
          status: 200,
          body: entries.map(([name, type]) =>
            contentJson(hosted, ref, `${prefix}${name}`, type, type === 'file' ? tree.get(`${prefix}${name}`) : undefined, false),
          ),
        };
      },
    ],
    [
      'POST',
      /^\/repos\/([^/]+)\/([^/]+)\/check-runs$/,
      async (m, { req, installationId }) => {
        const hosted = reachable(installationId(), m[1] ?? '', m[2] ?? '');
        const body = await readBody(req);
        if (typeof body.name !== 'string' || typeof body.head_sha !== 'string') throw invalid('Invalid request.\n\n"name", "head_sha" weren\'t supplied.');
        if (!hosted.commits.has(body.head_sha)) throw invalid('No commit found for SHA: ' + body.head_sha);
        const run: StandInCheckRun = {
          id: nextId++,
          name: body.name,
          head_sha: body.head_sha,
          external_id: typeof body.external_id === 'string' ? body.external_id : null,
          status: 'queued',
          conclusion: null,
          details_url: typeof body.details_url === 'string' ? body.details_url : null,
          started_at: iso(),
          completed_at: null,
          output: { title: null, summary: null, text: null },
          annotations: [],
          annotationBatches: [],
        };
        applyStatus(run, body);
        applyCheckRunOutput(run, body.output);
        hosted.checkRuns.push(run);
        return { status: 201, body: checkRunJson(hosted, run) };
      },
    ],
    [
      'PATCH',
      /^\/repos\/([^/]+)\/([^/]+)\/check-runs\/(\d+)$/,
      async (m, { req, installationId }) => {
        const hosted = reachable(installationId(), m[1] ?? '', m[2] ?? '');
        const run = hosted.checkRuns.find((r) => r.id === Number(m[3]));
        if (!run) throw notFound();
        const body = await readBody(req);
        // Validate everything before changing anything: a refused request leaves the run as it was.
        const draft: StandInCheckRun = { ...run, output: { ...run.output }, annotations: [...run.annotations], annotationBatches: [...run.annotationBatches] };
        applyStatus(draft, body);
        applyCheckRunOutput(draft, body.output);
        Object.assign(run, draft);
        return { status: 200, body: checkRunJson(hosted, run) };
      },
    ],
    [
      'GET',
      /^\/repos\/([^/]+)\/([^/]+)\/commits\/([^/]+)\/check-runs$/,
      async (m, { url, installationId }) => {
        const hosted = reachable(installationId(), m[1] ?? '', m[2] ?? '');
        const ref = decodeURIComponent(m[3] ?? '');
        const sha = hosted.pulls.find((p) => p.head.ref === ref)?.head.sha ?? ref;
        const name = url.searchParams.get('check_name');
        let runs = hosted.checkRuns.filter((r) => r.head_sha === sha && (name === null || r.name === name));
        if ((url.searchParams.get('filter') ?? 'latest') === 'latest') {
          const latest = new Map<string, StandInCheckRun>();
          for (const r of runs) if ((latest.get(r.name)?.id ?? 0) < r.id) latest.set(r.name, r);
          runs = [...latest.values()];
        }
        runs = [...runs].sort((a, b) => b.id - a.id);
        const { items, headers } = page(url, runs);
        return { status: 200, body: { total_count: runs.length, check_runs: items.map((r) => checkRunJson(hosted, r)) }, headers };
      },
    ],
    [
      'POST',
      /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)\/reviews$/,
      async (m, { req, installationId }) => {
        const hosted = reachable(installationId(), m[1] ?? '', m[2] ?? '');
        const pr = pull(hosted, Number(m[3]));
        const body = await readBody(req);
        const event = typeof body.event === 'string' ? body.event : 'PENDING';
        if (!['APPROVE', 'REQUEST_CHANGES', 'COMMENT', 'PENDING'].includes(event)) throw invalid('Unprocessable Entity', ['event is not a member of the enum']);
        const drafts = Array.isArray(body.comments) ? (body.comments as { path?: unknown; line?: unknown; side?: unknown; body?: unknown }[]) : [];
        for (const c of drafts) {
          const file = pr.files.find((f) => f.filename === c.path);
          if (typeof c.body !== 'string' || typeof c.line !== 'number' || !file) throw invalid('Unprocessable Entity', ['Path could not be resolved']);
          if ((c.side ?? 'RIGHT') !== 'RIGHT' || !rightSideLines(file.patch).has(c.line)) throw invalid('Unprocessable Entity', ['Line could not be resolved']);
        }
        const commitId = typeof body.commit_id === 'string' ? body.commit_id : pr.head.sha;
        const review: StandInReview = {
          id: nextId++,
          pull_number: pr.number,
          commit_id: commitId,
          body: typeof body.body === 'string' ? body.body : '',
          event,
          state: { APPROVE: 'APPROVED', REQUEST_CHANGES: 'CHANGES_REQUESTED', COMMENT: 'COMMENTED', PENDING: 'PENDING' }[event] ?? 'COMMENTED',
          user: botLogin,
        };
        hosted.reviews.push(review);
        for (const c of drafts) {
          const at = iso();
          hosted.comments.push({
            id: nextId++,
            pull_number: pr.number,
            pull_request_review_id: review.id,
            commit_id: commitId,
            path: String(c.path),
            line: Number(c.line),
            side: 'RIGHT',
            body: String(c.body),
            in_reply_to_id: null,
            user: botLogin,
            created_at: at,
            updated_at: at,
          });
        }
        const fullName = fullNameOf(hosted);
        return {
          status: 200,
          body: {
            id: review.id,
            node_id: `PRR_${review.id}`,
            user: user(review.user),
            body: review.body,
            state: review.state,
            html_url: `https://github.com/${fullName}/pull/${pr.number}#pullrequestreview-${review.id}`,
            pull_request_url: `${baseUrl}/repos/${fullName}/pulls/${pr.number}`,
            commit_id: review.commit_id,
            submitted_at: iso(),
          },
        };
      },
    ],
    [
      'GET',
      /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)\/comments$/,
      async (m, { url, installationId }) => {
        const hosted = reachable(installationId(), m[1] ?? '', m[2] ?? '');
        const pr = pull(hosted, Number(m[3]));
        const comments = hosted.comments.filter((c) => c.pull_number === pr.number).sort((a, b) => a.id - b.id);
        if (url.searchParams.get('direction') === 'desc') comments.reverse();
        const { items, headers } = page(url, comments);
        return { status: 200, body: items.map((c) => commentJson(hosted, c)), headers };
      },
    ],
    [
      'POST',
      /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)\/comments$/,
      async (m, { req, installationId }) => {
        const hosted = reachable(installationId(), m[1] ?? '', m[2] ?? '');
        const pr = pull(hosted, Number(m[3]));
        const body = await readBody(req);
        if (typeof body.body !== 'string') throw invalid('Validation Failed', [{ resource: 'PullRequestReviewComment', code: 'missing_field', field: 'body' }]);
        if (body.in_reply_to === undefined)
          throw invalid('Validation Failed', [{ resource: 'PullRequestReviewComment', code: 'missing_field', field: 'in_reply_to' }]);
        const parent = hosted.comments.find((c) => c.id === Number(body.in_reply_to) && c.pull_number === pr.number);
        if (!parent) throw notFound();
        const at = iso();
        const reply: StandInReviewComment = {
          ...parent,
          id: nextId++,
          pull_request_review_id: null,
          body: body.body,
          in_reply_to_id: parent.in_reply_to_id ?? parent.id,
          user: botLogin,
          created_at: at,
          updated_at: at,
        };
        hosted.comments.push(reply);
        return { status: 201, body: commentJson(hosted, reply) };
      },
    ],
    [
      'PATCH',
      /^\/repos\/([^/]+)\/([^/]+)\/pulls\/comments\/(\d+)$/,
      async (m, { req, installationId }) => {
        const hosted = reachable(installationId(), m[1] ?? '', m[2] ?? '');
        const comment = hosted.comments.find((c) => c.id === Number(m[3]));
        if (!comment) throw notFound();
        const body = await readBody(req);
        if (typeof body.body !== 'string') throw invalid('Validation Failed', [{ resource: 'PullRequestReviewComment', code: 'missing_field', field: 'body' }]);
        if (comment.user !== botLogin) throw new HttpAnswer(403, { message: 'Must have admin rights to Repository.', documentation_url: DOCS, status: '403' });
        comment.body = body.body;
        comment.updated_at = iso();
        return { status: 200, body: commentJson(hosted, comment) };
      },
    ],
  ];

  const faultFor = (method: string, path: string): StandInFault | undefined => {
    const fault = faults.find((f) => f.left > 0 && f.method === method && (typeof f.path === 'string' ? f.path === path : f.path.test(path)));
    if (fault) fault.left -= 1;
    return fault;
  };
  const answerFault = (fault: StandInFault): HttpAnswer => {
    const headers: Record<string, string> = {};
    if (fault.retryAfterSeconds !== undefined) headers['retry-after'] = String(fault.retryAfterSeconds);
    if (fault.rateLimitExhausted) {
      headers['x-ratelimit-limit'] = '5000';
      headers['x-ratelimit-remaining'] = '0';
      headers['x-ratelimit-reset'] = String(Math.floor(Date.now() / 1000) + 60);
    }
    const message =
      fault.message ??
      (fault.status === 429 || fault.rateLimitExhausted
        ? 'API rate limit exceeded for installation.'
        : fault.status === 403
          ? 'Resource not accessible by integration'
          : fault.status === 422
            ? 'Unprocessable Entity'
            : 'Server Error');
    return new HttpAnswer(fault.status, { message, documentation_url: DOCS, status: String(fault.status) }, headers);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const method = req.method ?? 'GET';
    requests.push(`${method} ${url.pathname}${url.search}`);
    let status = 404;
    let body: unknown = { message: 'Not Found', documentation_url: DOCS, status: '404' };
    let headers: Record<string, string> = {};
    try {
      const fault = faultFor(method, url.pathname);
      if (fault) throw answerFault(fault);
      const userAnswer = (await userAuth.handle(req, url)) ?? (await appInstallations.handle(req, url));
      if (userAnswer) throw new HttpAnswer(userAnswer.status, userAnswer.body, userAnswer.headers);
      for (const [routeMethod, pattern, route] of routes) {
        const m = pattern.exec(url.pathname);
        if (!m || routeMethod !== method) continue;
        const answer = await route(
          m.map((part) => decodeURIComponent(part)),
          { req, url, installationId: () => installationOf(req.headers.authorization ?? '') },
        );
        ({ status, body } = answer);
        headers = answer.headers ?? {};
        break;
      }
    } catch (error) {
      if (!(error instanceof HttpAnswer)) throw error;
      ({ status, body, headers } = error);
    }
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-github-media-type': 'github.v3; format=json', ...headers });
    res.end(text);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify({ message: String(error), status: '500' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

  const pullOf = (fullName: string, number: number): { hosted: HostedRepository; pr: StandInPullRequest } => {
    const hosted = hostedRepository(fullName);
    const pr = hosted.pulls.find((p) => p.number === number);
    if (!pr) throw new Error(`the stand-in has no pull request ${fullName}#${number}`);
    return { hosted, pr };
  };
  const installationJson = (hosted: HostedRepository) => ({ id: hosted.installationId, node_id: `MDIz_${hosted.installationId}` });

  return {
    url: baseUrl,
    webUrl: baseUrl,
    addUser: (user) => userAuth.addUser(user),
    userTokens: () => userAuth.userTokens(),
    authorizeUser: (login) => userAuth.authorizeUser(login),
    revokeUserTokens: (login) => userAuth.revokeUserTokens(login),
    forgetAuthorization: (login) => userAuth.forgetAuthorization(login),
    minted,
    jwts,
    requests,
    addInstallation,
    openPullRequest: (fullName, input) => {
      const hosted = hostedRepository(fullName);
      const number = Math.max(0, ...hosted.pulls.map((p) => p.number)) + 1;
      hosted.commits.add(input.head.sha).add(input.base.sha);
      hosted.pulls.push({
        number,
        title: input.title,
        state: 'open',
        merged: false,
        head: { ...input.head },
        base: { ...input.base },
        files: withCounts(input.files),
        user: input.user ?? 'octocat',
      });
      return number;
    },
    pushHead: (fullName, number, head) => {
      const { hosted, pr } = pullOf(fullName, number);
      const before = pr.head.sha;
      pr.head.sha = head.sha;
      hosted.commits.add(head.sha);
      if (head.files) pr.files = withCounts(head.files);
      return before;
    },
    closePullRequest: (fullName, number, closeOptions = {}) => {
      const { pr } = pullOf(fullName, number);
      pr.state = 'closed';
      pr.merged = closeOptions.merged ?? false;
    },
    setCommitFiles: (fullName, sha, files) => {
      const hosted = hostedRepository(fullName);
      hosted.commits.add(sha);
      hosted.trees.set(sha, new Map(Object.entries(files)));
    },
    pullRequest: (fullName, number) => hostedRepository(fullName).pulls.find((p) => p.number === number),
    checkRuns: (fullName) => hostedRepository(fullName).checkRuns,
    reviews: (fullName, number) => hostedRepository(fullName).reviews.filter((r) => r.pull_number === number),
    reviewComments: (fullName, number) => hostedRepository(fullName).comments.filter((c) => c.pull_number === number),
    addReviewComment: (fullName, number, comment) => {
      const { hosted, pr } = pullOf(fullName, number);
      const parent = comment.inReplyTo === undefined ? undefined : hosted.comments.find((c) => c.id === comment.inReplyTo);
      const at = iso();
      const id = nextId++;
      hosted.comments.push({
        id,
        pull_number: pr.number,
        pull_request_review_id: null,
        commit_id: pr.head.sha,
        path: parent?.path ?? comment.path ?? pr.files[0]?.filename ?? '',
        line: parent?.line ?? comment.line ?? null,
        side: 'RIGHT',
        body: comment.body,
        in_reply_to_id: parent ? (parent.in_reply_to_id ?? parent.id) : null,
        user: comment.user,
        created_at: at,
        updated_at: at,
      });
      return id;
    },
    failNext: (fault) => {
      faults.push({ ...fault, left: fault.times ?? 1 });
    },
    deliverWebhook: async (target, webhook) => {
      const hosted = hostedRepository(webhook.fullName);
      const common = {
        repository: repositoryJson(hosted),
        installation: installationJson(hosted),
        sender: user(webhook.event === 'check_run' ? 'octocat' : (pullOf(webhook.fullName, webhook.number).pr.user ?? 'octocat')),
      };
      if (webhook.event === 'pull_request') {
        const { pr } = pullOf(webhook.fullName, webhook.number);
        const sync = webhook.action === 'synchronize' ? { before: webhook.before ?? '0'.repeat(40), after: pr.head.sha } : {};
        return sendWebhook(target, 'pull_request', { action: webhook.action, number: pr.number, pull_request: pullJson(hosted, pr), ...sync, ...common });
      }
      const run = hosted.checkRuns.find((r) => r.id === webhook.checkRunId);
      if (!run) throw new Error(`the stand-in has no check run ${webhook.checkRunId}`);
      const runJson = checkRunJson(hosted, run);
      const headBranch = hosted.pulls.find((p) => p.head.sha === run.head_sha)?.head.ref ?? null;
      return sendWebhook(target, 'check_run', {
        action: webhook.action,
        check_run: { ...runJson, check_suite: { ...runJson.check_suite, head_sha: run.head_sha, head_branch: headBranch, status: 'queued', conclusion: null } },
        ...common,
      });
    },
    addAccount: (account) => appInstallations.addAccount(account),
    installations: () => appInstallations.list(),
    appDeliveries: () => appInstallations.deliveries(),
    uninstall: (installationId) => appInstallations.uninstall(installationId),
    suspendInstallation: (installationId, suspended) => appInstallations.suspend(installationId, suspended),
    selectRepositories: (installationId, change) => appInstallations.selectRepositories(installationId, change),
    renameRepository: (fullName, to) => appInstallations.renameRepository(fullName, to),
    setDefaultBranch: (fullName, branch) => appInstallations.setDefaultBranch(fullName, branch),
    redeliver: (deliveryId) => appInstallations.redeliver(deliveryId),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function definedCounts(file: StandInPullRequestFile): { additions?: number; deletions?: number } {
  return { ...(file.additions === undefined ? {} : { additions: file.additions }), ...(file.deletions === undefined ? {} : { deletions: file.deletions }) };
}
