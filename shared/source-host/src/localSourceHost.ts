import { access, mkdir, readFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { branchNameProblem } from '@ars/git-refs';
import { capCheckRunText } from './checkRunLimits.js';
import { commentableLines } from './diffLines.js';
import { branchTips, commitFiles, commitOnto, diffFiles, diffText, fileAt, git, resolveCommit } from './localGit.js';
import { RepositoryStateFile, type StoredCheckRun, type StoredPullRequest, type StoredReviewComment } from './localState.js';
import { SourceHostError } from './sourceHostError.js';
import type {
  CheckRun,
  CheckRunUpdate,
  InstallationRef,
  NewCheckRun,
  NewReview,
  PullRequest,
  PullRequestFile,
  RepositoryRef,
  ReviewComment,
  SourceHost,
  SourceHostRepository,
} from './sourceHost.js';

export interface LocalRepository {
  fullName: string;
  defaultBranch: string;
  /** A `file://` URL git can clone and push to. */
  cloneUrl: string;
  path: string;
}

export interface NewLocalRepository {
  owner: string;
  name: string;
  defaultBranch?: string;
  /** Files of the first commit, by path. */
  files?: Record<string, string>;
}

export interface NewLocalPullRequest {
  /** The branch with the changes. */
  head: string;
  /** The branch they would merge into. */
  base: string;
  title: string;
}

/** A check run as the local host keeps it: with its output and every annotation sent. */
export interface LocalCheckRunRecord extends CheckRun, Omit<StoredCheckRun, 'url'> {}

export interface LocalSourceHostOptions {
  /** The login reviews and replies are written as; default `agent-run-service[bot]`. */
  login?: string;
}

const NAME_PART = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const validPart = (part: string): boolean => NAME_PART.test(part) && !part.endsWith('.git') && !part.includes('..');

/**
 * The development source host: real bare git repositories on disk, one per `owner/name`, each with
 * a default branch and at least one commit, so sandboxes can clone them and push branches back.
 * Pull requests, check runs, reviews and review comments are kept beside them, one JSON file per
 * repository under `<root>/.ars/<owner>/<name>.json`; head and base SHAs, the diff and the files
 * are read from the branches with the git CLI, so a push to the head branch moves the pull request.
 */
export class LocalSourceHost implements SourceHost {
  readonly provider = 'local' as const;
  private readonly login: string;

  constructor(
    private readonly root: string,
    options: LocalSourceHostOptions = {},
  ) {
    this.login = options.login ?? 'agent-run-service[bot]';
  }

  /** The repositories under `<root>/<account>/`, by name, each with the branch its HEAD names. */
  async listRepositories(installation: InstallationRef): Promise<SourceHostRepository[]> {
    if (!NAME_PART.test(installation.account)) return [];
    const dir = join(this.root, installation.account);
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    const repositories: SourceHostRepository[] = [];
    for (const entry of entries.filter((e) => e.isDirectory() && e.name.endsWith('.git')).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name);
      const head = await readFile(join(path, 'HEAD'), 'utf8').catch(() => '');
      const branch = /^ref: refs\/heads\/(.+)$/m.exec(head)?.[1] ?? null;
      repositories.push({
        externalId: null,
        fullName: `${installation.account}/${entry.name.slice(0, -4)}`,
        defaultBranch: branch,
        cloneUrl: `file://${path}`,
      });
    }
    return repositories;
  }

  /** Local repositories need no credentials: the `file://` URL itself. */
  async authenticatedCloneUrl(_installation: InstallationRef, repository: { cloneUrl: string }): Promise<string> {
    return repository.cloneUrl;
  }

  /** The local host needs no token: it is reached on disk. */
  async accessToken(_installation: InstallationRef): Promise<null> {
    return null;
  }

  async createRepository(input: NewLocalRepository): Promise<LocalRepository> {
    for (const part of [input.owner, input.name]) {
      if (!validPart(part)) throw new Error(`invalid repository name part: ${part}`);
    }
    const defaultBranch = input.defaultBranch ?? 'main';
    const path = join(this.root, input.owner, `${input.name}.git`);
    await mkdir(join(this.root, input.owner), { recursive: true });
    await rm(path, { recursive: true, force: true });
    await rm(this.stateFilePath(input.owner, input.name), { force: true });
    await git(['init', '--quiet', '--bare', `--initial-branch=${defaultBranch}`, path]);
    const files = input.files ?? { 'README.md': `# ${input.owner}/${input.name}\n` };
    await commitFiles(path, defaultBranch, files, 'Initial commit');
    return { fullName: `${input.owner}/${input.name}`, defaultBranch, cloneUrl: `file://${path}`, path };
  }

  /**
   * A commit on `branch` (created or moved) on top of `from`'s tip with `files` changed, as a push
   * would make it (development and tests: a sample pull request's head). Returns the commit.
   */
  async pushCommit(fullName: string, input: { branch: string; from: string; files: Record<string, string>; message: string }): Promise<string> {
    const repo = await this.repository(fullName);
    const problem = branchNameProblem(input.branch);
    if (problem !== null) throw unprocessable(`branch ${problem}`);
    for (const path of Object.keys(input.files)) {
      if (path.split('/').some((part) => part === '' || part === '.' || part === '..') || path.includes('\0')) throw unprocessable(`invalid path ${path}`);
    }
    return commitOnto(repo.path, input.branch, input.from, input.files, input.message);
  }

  /** Opens a pull request from `head` into `base` (both existing branches), numbered 1, 2, … per repository. */
  async openPullRequest(fullName: string, input: NewLocalPullRequest): Promise<PullRequest> {
    const repo = await this.repository(fullName);
    for (const [field, branch] of [
      ['head', input.head],
      ['base', input.base],
    ] as const) {
      const problem = branchNameProblem(branch);
      if (problem !== null) throw unprocessable(`${field} ${problem}`);
    }
    const tips = await branchTips(repo.path, [input.head, input.base]);
    const headSha = tips.get(input.head) ?? null;
    const baseSha = tips.get(input.base) ?? null;
    if (headSha === null) throw unprocessable(`head branch ${input.head} does not exist`);
    if (baseSha === null) throw unprocessable(`base branch ${input.base} does not exist`);
    if (input.head === input.base) throw unprocessable(`head and base are both ${input.head}`);
    const stored = await repo.state.update((state) => {
      if (state.pullRequests.some((pr) => pr.state === 'open' && pr.headRef === input.head && pr.baseRef === input.base)) {
        throw unprocessable(`a pull request already exists for ${input.head} into ${input.base}`);
      }
      const pr: StoredPullRequest = {
        number: Math.max(0, ...state.pullRequests.map((p) => p.number)) + 1,
        title: input.title,
        headRef: input.head,
        baseRef: input.base,
        state: 'open',
        merged: false,
        headSha,
        baseSha,
      };
      state.pullRequests.push(pr);
      return pr;
    });
    return this.pullRequestView(repo, stored);
  }

  /** Closes the pull request without merging; its SHAs stay those of the moment it closed. */
  async closePullRequest(fullName: string, number: number): Promise<PullRequest> {
    const repo = await this.repository(fullName);
    const stored = await repo.state.update(async (state) => {
      const pr = state.pullRequests.find((p) => p.number === number);
      if (!pr) throw notFound(`pull request ${fullName}#${number}`);
      if (pr.state === 'open') Object.assign(pr, await this.liveShas(repo.path, pr), { state: 'closed' });
      return pr;
    });
    return this.pullRequestView(repo, stored);
  }

  async getPullRequest(ref: RepositoryRef, number: number): Promise<PullRequest | null> {
    const repo = await this.repository(ref.fullName, ref.installation);
    const pr = (await repo.state.read()).pullRequests.find((p) => p.number === number);
    return pr ? this.pullRequestView(repo, pr) : null;
  }

  async listPullRequestFiles(ref: RepositoryRef, number: number): Promise<PullRequestFile[]> {
    const { repo, shas } = await this.pullRequestShas(ref, number);
    return diffFiles(repo.path, shas.baseSha, shas.headSha);
  }

  async pullRequestDiff(ref: RepositoryRef, number: number): Promise<string> {
    const { repo, shas } = await this.pullRequestShas(ref, number);
    return diffText(repo.path, shas.baseSha, shas.headSha);
  }

  /** The file at the commit a ref or SHA names (`git ls-tree` of its parent, `git cat-file blob`); null for a ref or path that names no regular file. */
  async fileContent(ref: RepositoryRef, commitish: string, path: string): Promise<string | null> {
    const repo = await this.repository(ref.fullName, ref.installation);
    const commit = await resolveCommit(repo.path, commitish);
    return commit === null ? null : fileAt(repo.path, commit, path);
  }

  async createCheckRun(ref: RepositoryRef, input: NewCheckRun): Promise<CheckRun> {
    const repo = await this.repository(ref.fullName, ref.installation);
    const headSha = await resolveCommit(repo.path, input.headSha);
    if (headSha === null || headSha !== input.headSha) throw unprocessable(`no commit found for SHA: ${input.headSha}`);
    const stored = await repo.state.update((state) => {
      const run: StoredCheckRun = {
        id: state.nextId++,
        name: input.name,
        headSha,
        externalId: input.externalId,
        status: input.status,
        conclusion: null,
        detailsUrl: input.detailsUrl ?? null,
        output: null,
        annotations: [],
      };
      state.checkRuns.push(run);
      return run;
    });
    return checkRunView(stored);
  }

  /** Status, conclusion (which completes the run) and output; annotations are appended, any number at once. */
  async updateCheckRun(ref: RepositoryRef, id: number, update: CheckRunUpdate): Promise<CheckRun> {
    const repo = await this.repository(ref.fullName, ref.installation);
    const stored = await repo.state.update((state) => {
      const run = state.checkRuns.find((r) => r.id === id);
      if (!run) throw notFound(`check run ${id}`);
      if (update.status !== undefined) run.status = update.status;
      if (update.conclusion !== undefined) {
        run.conclusion = update.conclusion;
        run.status = 'completed';
      }
      if (update.output) {
        run.output = {
          title: update.output.title,
          summary: capCheckRunText(update.output.summary),
          text: update.output.text === undefined ? (run.output?.text ?? null) : capCheckRunText(update.output.text),
        };
        run.annotations.push(...(update.output.annotations ?? []));
      }
      return run;
    });
    return checkRunView(stored);
  }

  async latestCheckRun(ref: RepositoryRef, headSha: string, name: string): Promise<CheckRun | null> {
    const repo = await this.repository(ref.fullName, ref.installation);
    const runs = (await repo.state.read()).checkRuns.filter((r) => r.headSha === headSha && r.name === name);
    const latest = runs.reduce<StoredCheckRun | null>((a, b) => (a === null || b.id > a.id ? b : a), null);
    return latest ? checkRunView(latest) : null;
  }

  /** A check run with everything sent to it (output, annotations), or null. */
  async readCheckRun(fullName: string, id: number): Promise<LocalCheckRunRecord | null> {
    const repo = await this.repository(fullName);
    const run = (await repo.state.read()).checkRuns.find((r) => r.id === id);
    return run ? { ...run, ...checkRunView(run) } : null;
  }

  /** Refused whole (`unprocessable`) when a comment's path or line is not in the pull request's diff, as GitHub does. */
  async createReview(ref: RepositoryRef, number: number, review: NewReview): Promise<{ id: number }> {
    const files = await this.listPullRequestFiles(ref, number);
    for (const comment of review.comments) {
      const file = files.find((f) => f.path === comment.path);
      if (!file) throw unprocessable(`path ${comment.path} is not part of the diff`);
      if (!commentableLines(file.patch).has(comment.line)) throw unprocessable(`line ${comment.line} of ${comment.path} is not part of the diff`);
    }
    const repo = await this.repository(ref.fullName, ref.installation);
    return repo.state.update((state) => {
      const id = state.nextId++;
      state.reviews.push({ id, number, commitSha: review.commitSha, body: review.body, event: 'COMMENT' });
      for (const comment of review.comments) {
        state.comments.push({ id: state.nextId++, number, reviewId: id, commitSha: review.commitSha, ...comment, inReplyToId: null, author: this.login });
      }
      return { id };
    });
  }

  async listReviewComments(ref: RepositoryRef, number: number): Promise<ReviewComment[]> {
    const { repo } = await this.pullRequestShas(ref, number);
    const comments = (await repo.state.read()).comments.filter((c) => c.number === number);
    return comments.sort((a, b) => a.id - b.id).map(commentView);
  }

  /** A reply joins the thread of the comment it answers (a reply to a reply answers the thread's first comment). */
  async replyToReviewComment(ref: RepositoryRef, number: number, commentId: number, body: string): Promise<ReviewComment> {
    const repo = await this.repository(ref.fullName, ref.installation);
    const reply = await repo.state.update((state) => {
      const parent = state.comments.find((c) => c.id === commentId && c.number === number);
      if (!parent) throw notFound(`review comment ${commentId} on pull request ${number}`);
      const comment: StoredReviewComment = {
        id: state.nextId++,
        number,
        reviewId: null,
        commitSha: parent.commitSha,
        path: parent.path,
        line: parent.line,
        body,
        inReplyToId: parent.inReplyToId ?? parent.id,
        author: this.login,
      };
      state.comments.push(comment);
      return comment;
    });
    return commentView(reply);
  }

  async updateReviewComment(ref: RepositoryRef, commentId: number, body: string): Promise<ReviewComment> {
    const repo = await this.repository(ref.fullName, ref.installation);
    const comment = await repo.state.update((state) => {
      const found = state.comments.find((c) => c.id === commentId);
      if (!found) throw notFound(`review comment ${commentId}`);
      found.body = body;
      return found;
    });
    return commentView(comment);
  }

  private stateFilePath(owner: string, name: string): string {
    return join(this.root, '.ars', owner, `${name}.json`);
  }

  /** The bare repository and its state file; `not_found` when there is none or the installation's account is not its owner. */
  private async repository(fullName: string, installation?: InstallationRef): Promise<{ fullName: string; path: string; state: RepositoryStateFile }> {
    const [owner = '', name = '', ...rest] = fullName.split('/');
    if (rest.length > 0 || !validPart(owner) || !validPart(name)) throw notFound(`repository ${fullName}`);
    if (installation && installation.account !== owner) throw notFound(`repository ${fullName}`);
    const path = join(this.root, owner, `${name}.git`);
    await access(join(path, 'HEAD')).catch(() => {
      throw notFound(`repository ${fullName}`);
    });
    return { fullName, path, state: new RepositoryStateFile(this.stateFilePath(owner, name)) };
  }

  /** An open pull request's SHAs are its branches' now (the stored ones if a branch is gone); a closed one's are kept. */
  private async liveShas(repoPath: string, pr: StoredPullRequest): Promise<{ headSha: string; baseSha: string }> {
    if (pr.state === 'closed') return { headSha: pr.headSha, baseSha: pr.baseSha };
    const tips = await branchTips(repoPath, [pr.headRef, pr.baseRef]);
    return { headSha: tips.get(pr.headRef) ?? pr.headSha, baseSha: tips.get(pr.baseRef) ?? pr.baseSha };
  }

  private async pullRequestShas(ref: RepositoryRef, number: number) {
    const repo = await this.repository(ref.fullName, ref.installation);
    const pr = (await repo.state.read()).pullRequests.find((p) => p.number === number);
    if (!pr) throw notFound(`pull request ${ref.fullName}#${number}`);
    return { repo, shas: await this.liveShas(repo.path, pr) };
  }

  private async pullRequestView(repo: { fullName: string; path: string }, pr: StoredPullRequest): Promise<PullRequest> {
    const shas = await this.liveShas(repo.path, pr);
    return {
      number: pr.number,
      state: pr.state,
      merged: pr.merged,
      title: pr.title,
      headRef: pr.headRef,
      headSha: shas.headSha,
      baseRef: pr.baseRef,
      baseSha: shas.baseSha,
      url: `file://${repo.path}#pull/${pr.number}`,
    };
  }
}

const notFound = (what: string) => new SourceHostError('not_found', 404, `${what} not found`);
const unprocessable = (why: string) => new SourceHostError('unprocessable', 422, why);

const checkRunView = (run: StoredCheckRun): CheckRun => ({
  id: run.id,
  name: run.name,
  headSha: run.headSha,
  externalId: run.externalId,
  status: run.status,
  conclusion: run.conclusion,
  url: null,
});

const commentView = (comment: StoredReviewComment): ReviewComment => ({
  id: comment.id,
  path: comment.path,
  line: comment.line,
  body: comment.body,
  inReplyToId: comment.inReplyToId,
  author: comment.author,
});
