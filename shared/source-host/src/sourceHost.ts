/**
 * The source-host port: where an installation's repositories live, how a sandbox clones them, and
 * what a review says on a pull request (check runs, reviews, review comments). Adapters beside it:
 * `localSourceHost.ts` (bare git repositories on disk, for development and tests) and
 * `githubApp.ts` (a GitHub App through Octokit). Every failure the host reports is a
 * `SourceHostError` (`sourceHostError.ts`).
 */
export type SourceHostProvider = 'local' | 'github';

/** What the catalog knows of an installation when it asks its source host. */
export interface InstallationRef {
  /** The account (user or organisation login) the installation belongs to. */
  account: string;
  /** The source host's own installation id (GitHub's), or null for the local host. */
  externalId: number | null;
}

export interface SourceHostRepository {
  /** The source host's own id of the repository (GitHub's, which stays through renames and transfers); null for the local host. */
  externalId: number | null;
  fullName: string;
  defaultBranch: string | null;
  /** The repository's plain clone URL (no credentials). */
  cloneUrl: string;
}

/** A repository as pull-request calls address it: through the installation that reaches it. */
export interface RepositoryRef {
  installation: InstallationRef;
  /** `owner/name`. */
  fullName: string;
}

export interface PullRequest {
  number: number;
  state: 'open' | 'closed';
  merged: boolean;
  title: string;
  headRef: string;
  /** The head branch's commit now: a push to the head branch changes it. */
  headSha: string;
  baseRef: string;
  baseSha: string;
  /** Where a person sees it (GitHub's `html_url`). */
  url: string;
}

/** GitHub's file statuses in a pull request. */
export type PullRequestFileStatus = 'added' | 'removed' | 'modified' | 'renamed' | 'copied' | 'changed' | 'unchanged';

export interface PullRequestFile {
  path: string;
  status: PullRequestFileStatus;
  additions: number;
  deletions: number;
  /** The file's hunks (from the first `@@`), or null for a binary or too large file. */
  patch: string | null;
}

export type CheckRunStatus = 'queued' | 'in_progress' | 'completed';
export type CheckRunConclusion = 'success' | 'failure' | 'neutral' | 'cancelled' | 'skipped' | 'timed_out' | 'action_required';

export interface CheckRun {
  id: number;
  name: string;
  headSha: string;
  /** Links the check run to the caller's own record (a review attempt). */
  externalId: string | null;
  status: CheckRunStatus;
  conclusion: CheckRunConclusion | null;
  /** Where a person sees it (GitHub's `html_url`); null on the local host. */
  url: string | null;
}

export interface NewCheckRun {
  name: string;
  headSha: string;
  externalId: string;
  status: 'queued' | 'in_progress';
  detailsUrl?: string;
}

export interface CheckRunAnnotation {
  path: string;
  startLine: number;
  endLine: number;
  level: 'notice' | 'warning' | 'failure';
  message: string;
  title?: string;
}

export interface CheckRunOutput {
  title: string;
  /** At most 65,535 characters; adapters cut what is longer (`capCheckRunText`). */
  summary: string;
  text?: string;
  /** Any number: the GitHub adapter sends them 50 per request, appended across updates. */
  annotations?: CheckRunAnnotation[];
}

export interface CheckRunUpdate {
  status?: CheckRunStatus;
  /** Setting a conclusion completes the check run. */
  conclusion?: CheckRunConclusion;
  output?: CheckRunOutput;
}

export interface ReviewCommentDraft {
  path: string;
  /** A line of the file's new side that the pull request's diff shows; any other is `unprocessable`. */
  line: number;
  body: string;
}

export interface NewReview {
  /** The commit the review is about (the head SHA the review read). */
  commitSha: string;
  body: string;
  comments: ReviewCommentDraft[];
}

export interface ReviewComment {
  id: number;
  path: string;
  /** The new-side line, or null once the line is gone from the diff (outdated). */
  line: number | null;
  body: string;
  inReplyToId: number | null;
  /** The login of who wrote it. */
  author: string;
}

export interface SourceHost {
  readonly provider: SourceHostProvider;
  /** Every repository the installation can reach. */
  listRepositories(installation: InstallationRef): Promise<SourceHostRepository[]>;
  /**
   * A URL a sandbox can clone and push with. For GitHub it carries a short-lived installation access
   * token (treat it as a secret: never log it); for the local host it is the `file://` URL.
   */
  authenticatedCloneUrl(installation: InstallationRef, repository: { cloneUrl: string }): Promise<string>;
  /**
   * A short-lived access token for the installation (GitHub: an installation access token; a
   * secret, never logged), or null when the host needs none (the local host).
   */
  accessToken(installation: InstallationRef): Promise<{ token: string; expiresAt: string } | null>;

  /** The pull request, or null when the repository has none by that number. */
  getPullRequest(repo: RepositoryRef, number: number): Promise<PullRequest | null>;
  /** Every changed file of the pull request (all pages). */
  listPullRequestFiles(repo: RepositoryRef, number: number): Promise<PullRequestFile[]>;
  /** The pull request's unified diff (base...head), as a review prompt includes it. */
  pullRequestDiff(repo: RepositoryRef, number: number): Promise<string>;
  /** A file's text at a commit (or ref), or null when the file does not exist there (or is not a regular file). At most 1,000,000 bytes: a larger file is null too. */
  fileContent(repo: RepositoryRef, ref: string, path: string): Promise<string | null>;

  createCheckRun(repo: RepositoryRef, checkRun: NewCheckRun): Promise<CheckRun>;
  updateCheckRun(repo: RepositoryRef, id: number, update: CheckRunUpdate): Promise<CheckRun>;
  /** The most recent check run with that name on that commit, or null. */
  latestCheckRun(repo: RepositoryRef, headSha: string, name: string): Promise<CheckRun | null>;

  /** One review with inline comments; its event is always `COMMENT` (a review never blocks a merge). */
  createReview(repo: RepositoryRef, number: number, review: NewReview): Promise<{ id: number }>;
  /** Every review comment of the pull request (all pages), oldest first. */
  listReviewComments(repo: RepositoryRef, number: number): Promise<ReviewComment[]>;
  replyToReviewComment(repo: RepositoryRef, number: number, commentId: number, body: string): Promise<ReviewComment>;
  updateReviewComment(repo: RepositoryRef, commentId: number, body: string): Promise<ReviewComment>;
}
