import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/core';
import { capCheckRunText, inBatches, MAX_ANNOTATIONS_PER_REQUEST } from './checkRunLimits.js';
import { kindOfStatus, SourceHostError } from './sourceHostError.js';
import type {
  CheckRun,
  CheckRunAnnotation,
  CheckRunConclusion,
  CheckRunStatus,
  CheckRunUpdate,
  InstallationRef,
  NewCheckRun,
  NewReview,
  PullRequest,
  PullRequestFile,
  PullRequestFileStatus,
  RepositoryRef,
  ReviewComment,
  SourceHost,
  SourceHostRepository,
} from './sourceHost.js';

/**
 * Either the App's own credentials (the catalog: it mints installation tokens), or where to get an
 * installation token from (pr-review: the catalog hands them out, so no other service holds the App's key).
 */
export type GitHubAppOptions = {
  /** `https://api.github.com`, or a GitHub Enterprise Server's `https://<host>/api/v3`. */
  apiUrl: string;
} & (
  | {
      appId: string;
      /** The App's private key (PEM, PKCS#1 as GitHub issues it, or PKCS#8). */
      privateKey: string;
    }
  | {
      /** An installation access token (and when it expires) for the installation: a secret, never logged. */
      installationToken: (installationId: number) => Promise<{ token: string; expiresAt: string }>;
    }
);

/** The fields of GitHub's answers the adapter reads (GitHub's names). */
interface GitHubRepository {
  id: number;
  full_name: string;
  default_branch?: string | null;
  clone_url: string;
}
interface GitHubPullRequest {
  number: number;
  state: 'open' | 'closed';
  merged?: boolean | null;
  merged_at?: string | null;
  title: string;
  html_url: string;
  head: { ref: string; sha: string };
  base: { ref: string; sha: string };
}
interface GitHubPullRequestFile {
  filename: string;
  status: PullRequestFileStatus;
  additions: number;
  deletions: number;
  patch?: string;
}
/** `GET …/contents/{path}` for a file (a directory answers an array of entries instead). */
interface GitHubContent {
  type: 'file' | 'dir' | 'symlink' | 'submodule';
  size: number;
  /** Base64 with line breaks when `encoding` is `base64`; empty (`encoding: none`) for a file over 1 MB. */
  content?: string;
  encoding?: string;
}
interface GitHubCheckRun {
  id: number;
  name: string;
  head_sha: string;
  external_id?: string | null;
  status: CheckRunStatus | 'waiting' | 'requested' | 'pending';
  conclusion: CheckRunConclusion | 'stale' | null;
  html_url?: string | null;
}
interface GitHubReviewComment {
  id: number;
  path: string;
  line?: number | null;
  body: string;
  in_reply_to_id?: number;
  user: { login: string } | null;
}

const PAGE_SIZE = 100;
/** The largest file `fileContent` answers, in bytes. */
const MAX_FILE_BYTES = 1_000_000;

/**
 * The GitHub App adapter. The App authenticates as itself with an RS256 JWT (`iss` = the App id),
 * mints an installation access token (`POST /app/installations/:id/access_tokens`; Octokit's
 * auth-app caches it until shortly before it expires), and does everything else with that token:
 * repositories, pull requests, check runs, reviews and review comments (lists read page by page).
 * GitHub's refusals become `SourceHostError`s (403/404/422/429, `Retry-After`, an exhausted rate limit).
 */
export class GitHubAppSourceHost implements SourceHost {
  readonly provider = 'github' as const;
  private readonly mintToken: (installationId: number) => Promise<{ token: string; expiresAt: string }>;
  private readonly asApp: Octokit | undefined;
  private readonly baseUrl: string;

  constructor(options: GitHubAppOptions) {
    this.baseUrl = options.apiUrl.replace(/\/+$/, '');
    if ('installationToken' in options) {
      this.mintToken = options.installationToken;
      return;
    }
    const app = (this.asApp = new Octokit({
      baseUrl: this.baseUrl,
      authStrategy: createAppAuth,
      auth: { appId: options.appId, privateKey: options.privateKey },
    }));
    this.mintToken = async (installationId) => {
      const auth = (await hostCall(() => app.auth({ type: 'installation', installationId }))) as { token: string; expiresAt: string };
      return { token: auth.token, expiresAt: auth.expiresAt };
    };
  }

  /**
   * The installation as GitHub has it now (`GET /app/installations/{id}`, as the App): its account and
   * since when it is suspended; null when GitHub no longer has it (uninstalled). Only with the App's key.
   */
  async appInstallation(installationId: number): Promise<{ account: string; suspendedAt: string | null } | null> {
    const app = this.asApp;
    if (!app) throw new Error('appInstallation needs the App’s own key, not a handed-over installation token');
    try {
      const { data } = await hostCall(() => app.request('GET /app/installations/{installation_id}', { installation_id: installationId }));
      const body = data as { account?: { login?: string } | null; suspended_at?: string | null };
      return { account: body.account?.login ?? '', suspendedAt: body.suspended_at ?? null };
    } catch (error) {
      if (error instanceof SourceHostError && error.kind === 'not_found') return null;
      throw error;
    }
  }

  /** An installation access token and when it expires (ISO 8601). A secret: never log it. */
  async installationToken(installationId: number): Promise<{ token: string; expiresAt: string }> {
    return this.mintToken(installationId);
  }

  async accessToken(installation: InstallationRef): Promise<{ token: string; expiresAt: string }> {
    return this.installationToken(requireExternalId(installation));
  }

  async listRepositories(installation: InstallationRef): Promise<SourceHostRepository[]> {
    const client = await this.asInstallation(installation);
    const repositories: SourceHostRepository[] = [];
    for (let page = 1; ; page += 1) {
      const data = await client.get<{ total_count: number; repositories: GitHubRepository[] }>('GET /installation/repositories', { per_page: PAGE_SIZE, page });
      for (const repo of data.repositories) {
        repositories.push({ externalId: repo.id, fullName: repo.full_name, defaultBranch: repo.default_branch ?? null, cloneUrl: repo.clone_url });
      }
      if (data.repositories.length < PAGE_SIZE || repositories.length >= data.total_count) return repositories;
    }
  }

  /**
   * `https://x-access-token:<token>@host/owner/repo.git`: how GitHub documents cloning with an
   * installation token. Only an `http:`/`https:` URL carries it: any other clone URL (the `file://`
   * one of a local bare repository a stand-in answers, or one that is no URL) is answered unchanged,
   * and no token is minted for it.
   */
  async authenticatedCloneUrl(installation: InstallationRef, repository: { cloneUrl: string }): Promise<string> {
    const url = httpUrl(repository.cloneUrl);
    if (url === null) return repository.cloneUrl;
    const { token } = await this.installationToken(requireExternalId(installation));
    url.username = 'x-access-token';
    url.password = token;
    return url.toString();
  }

  async getPullRequest(repo: RepositoryRef, number: number): Promise<PullRequest | null> {
    const client = await this.asInstallation(repo.installation);
    try {
      const pr = await client.get<GitHubPullRequest>('GET /repos/{owner}/{repo}/pulls/{pull_number}', { ...ownerRepo(repo), pull_number: number });
      return {
        number: pr.number,
        state: pr.state,
        merged: pr.merged ?? Boolean(pr.merged_at),
        title: pr.title,
        headRef: pr.head.ref,
        headSha: pr.head.sha,
        baseRef: pr.base.ref,
        baseSha: pr.base.sha,
        url: pr.html_url,
      };
    } catch (error) {
      if (error instanceof SourceHostError && error.kind === 'not_found') return null;
      throw error;
    }
  }

  async listPullRequestFiles(repo: RepositoryRef, number: number): Promise<PullRequestFile[]> {
    const client = await this.asInstallation(repo.installation);
    const files = await client.allPages<GitHubPullRequestFile>('GET /repos/{owner}/{repo}/pulls/{pull_number}/files', {
      ...ownerRepo(repo),
      pull_number: number,
    });
    return files.map((f) => ({ path: f.filename, status: f.status, additions: f.additions, deletions: f.deletions, patch: f.patch ?? null }));
  }

  /** The pull request asked for in GitHub's diff media type (`application/vnd.github.diff`). */
  async pullRequestDiff(repo: RepositoryRef, number: number): Promise<string> {
    const client = await this.asInstallation(repo.installation);
    return client.get<string>('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
      ...ownerRepo(repo),
      pull_number: number,
      headers: { accept: 'application/vnd.github.diff' },
    });
  }

  /**
   * `GET /repos/{owner}/{repo}/contents/{path}?ref=` in GitHub's JSON form: the base64 `content` of
   * a `file`; null for a directory (an array), a symlink or submodule, a file over 1,000,000 bytes,
   * or a 404 (no such path or ref). The path's segments are sent encoded, its slashes as they are.
   */
  async fileContent(repo: RepositoryRef, ref: string, path: string): Promise<string | null> {
    const segments = path.split('/');
    if (path.includes('\0') || segments.some((s) => s === '' || s === '.' || s === '..')) return null;
    const client = await this.asInstallation(repo.installation);
    let answer: GitHubContent | GitHubContent[];
    try {
      answer = await client.get<GitHubContent | GitHubContent[]>(`GET /repos/{owner}/{repo}/contents/${segments.map(encodeURIComponent).join('/')}`, {
        ...ownerRepo(repo),
        ref,
      });
    } catch (error) {
      if (error instanceof SourceHostError && error.kind === 'not_found') return null;
      throw error;
    }
    if (Array.isArray(answer) || answer.type !== 'file' || answer.size > MAX_FILE_BYTES || answer.encoding !== 'base64') return null;
    return Buffer.from(answer.content ?? '', 'base64').toString('utf8');
  }

  async createCheckRun(repo: RepositoryRef, input: NewCheckRun): Promise<CheckRun> {
    const client = await this.asInstallation(repo.installation);
    const run = await client.send<GitHubCheckRun>('POST /repos/{owner}/{repo}/check-runs', {
      ...ownerRepo(repo),
      name: input.name,
      head_sha: input.headSha,
      external_id: input.externalId,
      status: input.status,
      ...(input.detailsUrl === undefined ? {} : { details_url: input.detailsUrl }),
    });
    return checkRunOf(run);
  }

  /**
   * GitHub takes at most 50 annotations per request and appends them across updates: more are sent
   * in batches of 50 (each with the output's title and summary), status and conclusion with the last.
   */
  async updateCheckRun(repo: RepositoryRef, id: number, update: CheckRunUpdate): Promise<CheckRun> {
    const client = await this.asInstallation(repo.installation);
    const batches: (CheckRunAnnotation[] | null)[] = update.output ? inBatches(update.output.annotations ?? [], MAX_ANNOTATIONS_PER_REQUEST) : [null];
    let run: GitHubCheckRun | undefined;
    for (const [i, annotations] of batches.entries()) {
      const last = i === batches.length - 1;
      const output = update.output && {
        title: update.output.title,
        summary: capCheckRunText(update.output.summary),
        ...(update.output.text === undefined ? {} : { text: capCheckRunText(update.output.text) }),
        ...(annotations && annotations.length > 0 ? { annotations: annotations.map(annotationOf) } : {}),
      };
      run = await client.send<GitHubCheckRun>('PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}', {
        ...ownerRepo(repo),
        check_run_id: id,
        ...(output ? { output } : {}),
        ...(last && update.status !== undefined ? { status: update.status } : {}),
        ...(last && update.conclusion !== undefined ? { conclusion: update.conclusion } : {}),
      });
    }
    return checkRunOf(run as GitHubCheckRun);
  }

  async latestCheckRun(repo: RepositoryRef, headSha: string, name: string): Promise<CheckRun | null> {
    const client = await this.asInstallation(repo.installation);
    const data = await client.get<{ total_count: number; check_runs: GitHubCheckRun[] }>('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', {
      ...ownerRepo(repo),
      ref: headSha,
      check_name: name,
      filter: 'latest',
      per_page: PAGE_SIZE,
    });
    const runs = data.check_runs.filter((r) => r.name === name && r.head_sha === headSha);
    const latest = runs.reduce<GitHubCheckRun | null>((a, b) => (a === null || b.id > a.id ? b : a), null);
    return latest ? checkRunOf(latest) : null;
  }

  async createReview(repo: RepositoryRef, number: number, review: NewReview): Promise<{ id: number }> {
    const client = await this.asInstallation(repo.installation);
    const created = await client.send<{ id: number }>('POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews', {
      ...ownerRepo(repo),
      pull_number: number,
      commit_id: review.commitSha,
      body: review.body,
      event: 'COMMENT',
      comments: review.comments.map((c) => ({ path: c.path, line: c.line, side: 'RIGHT', body: c.body })),
    });
    return { id: created.id };
  }

  async listReviewComments(repo: RepositoryRef, number: number): Promise<ReviewComment[]> {
    const client = await this.asInstallation(repo.installation);
    const comments = await client.allPages<GitHubReviewComment>('GET /repos/{owner}/{repo}/pulls/{pull_number}/comments', {
      ...ownerRepo(repo),
      pull_number: number,
      sort: 'created',
      direction: 'asc',
    });
    return comments.map(reviewCommentOf);
  }

  async replyToReviewComment(repo: RepositoryRef, number: number, commentId: number, body: string): Promise<ReviewComment> {
    const client = await this.asInstallation(repo.installation);
    const reply = await client.send<GitHubReviewComment>('POST /repos/{owner}/{repo}/pulls/{pull_number}/comments', {
      ...ownerRepo(repo),
      pull_number: number,
      body,
      in_reply_to: commentId,
    });
    return reviewCommentOf(reply);
  }

  async updateReviewComment(repo: RepositoryRef, commentId: number, body: string): Promise<ReviewComment> {
    const client = await this.asInstallation(repo.installation);
    const comment = await client.send<GitHubReviewComment>('PATCH /repos/{owner}/{repo}/pulls/comments/{comment_id}', {
      ...ownerRepo(repo),
      comment_id: commentId,
      body,
    });
    return reviewCommentOf(comment);
  }

  /** Requests as the installation (its access token), every failure a `SourceHostError`. */
  private async asInstallation(installation: InstallationRef): Promise<InstallationClient> {
    const { token } = await this.installationToken(requireExternalId(installation));
    const octokit = new Octokit({ baseUrl: this.baseUrl, auth: token });
    const get = <T>(route: string, parameters: Record<string, unknown>): Promise<T> =>
      hostCall(async () => (await octokit.request(route, parameters)).data as T);
    return {
      get,
      send: get,
      allPages: async <T>(route: string, parameters: Record<string, unknown>): Promise<T[]> => {
        const items: T[] = [];
        for (let page = 1; ; page += 1) {
          const batch = await get<T[]>(route, { ...parameters, per_page: PAGE_SIZE, page });
          items.push(...batch);
          if (batch.length < PAGE_SIZE) return items;
        }
      },
    };
  }
}

interface InstallationClient {
  get<T>(route: string, parameters: Record<string, unknown>): Promise<T>;
  send<T>(route: string, parameters: Record<string, unknown>): Promise<T>;
  /** Every page of a list answered as a JSON array (`per_page` 100, until a short page). */
  allPages<T>(route: string, parameters: Record<string, unknown>): Promise<T[]>;
}

/** The clone URL parsed when it is `http:` or `https:` (the only ones credentials go into), else null. */
function httpUrl(cloneUrl: string): URL | null {
  let url: URL;
  try {
    url = new URL(cloneUrl);
  } catch {
    return null;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
}

function requireExternalId(installation: InstallationRef): number {
  if (installation.externalId === null) throw new Error(`installation of ${installation.account} has no GitHub installation id`);
  return installation.externalId;
}

function ownerRepo(repo: RepositoryRef): { owner: string; repo: string } {
  const [owner = '', name = ''] = repo.fullName.split('/');
  return { owner, repo: name };
}

/** Octokit's request error, as far as the mapping reads it. */
interface HttpFailure {
  status: number;
  message: string;
  response?: { headers?: Record<string, string | number | undefined> };
}

const isHttpFailure = (error: unknown): error is HttpFailure =>
  typeof error === 'object' && error !== null && typeof (error as { status?: unknown }).status === 'number';

/** Runs a call to GitHub; an HTTP failure becomes a `SourceHostError` of its kind, with how long to wait when GitHub says. */
async function hostCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof SourceHostError) throw error;
    if (!isHttpFailure(error)) throw new SourceHostError('unavailable', 0, `GitHub could not be reached: ${(error as Error).message}`, { cause: error });
    const headers = error.response?.headers ?? {};
    const exhausted = String(headers['x-ratelimit-remaining'] ?? '') === '0';
    const kind = kindOfStatus(error.status, exhausted);
    const retryAfterSeconds = kind === 'rate_limited' ? retryAfter(headers) : undefined;
    throw new SourceHostError(kind, error.status, `GitHub answered ${error.status}: ${error.message}`, {
      cause: error,
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    });
  }
}

/** `Retry-After` seconds, else the time until `x-ratelimit-reset` (epoch seconds). */
function retryAfter(headers: Record<string, string | number | undefined>, nowMs = Date.now()): number | undefined {
  const after = Number(headers['retry-after']);
  if (headers['retry-after'] !== undefined && Number.isFinite(after)) return Math.max(0, after);
  const reset = Number(headers['x-ratelimit-reset']);
  if (headers['x-ratelimit-reset'] !== undefined && Number.isFinite(reset)) return Math.max(0, Math.ceil(reset - nowMs / 1000));
  return undefined;
}

const annotationOf = (a: CheckRunAnnotation) => ({
  path: a.path,
  start_line: a.startLine,
  end_line: a.endLine,
  annotation_level: a.level,
  message: a.message,
  ...(a.title === undefined ? {} : { title: a.title }),
});

function checkRunOf(run: GitHubCheckRun): CheckRun {
  const status: CheckRunStatus = run.status === 'completed' || run.status === 'in_progress' ? run.status : 'queued';
  return {
    id: run.id,
    name: run.name,
    headSha: run.head_sha,
    externalId: run.external_id ?? null,
    status,
    conclusion: run.conclusion === 'stale' ? 'neutral' : run.conclusion,
    url: run.html_url ?? null,
  };
}

const reviewCommentOf = (c: GitHubReviewComment): ReviewComment => ({
  id: c.id,
  path: c.path,
  line: c.line ?? null,
  body: c.body,
  inReplyToId: c.in_reply_to_id ?? null,
  author: c.user?.login ?? '',
});
