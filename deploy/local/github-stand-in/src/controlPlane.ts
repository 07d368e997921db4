// The control plane's members (the object startGitHubStandIn answers): what a test does to the
// hosted repositories and reads back, and its hand on Sign in with GitHub and the App's installations.
import type { AppInstallations } from './appInstallations.js';
import { iso } from './json.js';
import type { StandInPullRequest, StandInPullRequestFile } from './records.js';
import type { GitHubStandIn } from './standIn.js';
import type { StandInState } from './state.js';
import type { UserAuth } from './userAuth.js';

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

function definedCounts(file: StandInPullRequestFile): { additions?: number; deletions?: number } {
  return { ...(file.additions === undefined ? {} : { additions: file.additions }), ...(file.deletions === undefined ? {} : { deletions: file.deletions }) };
}

const withCounts = (files: StandInPullRequestFile[]): StandInPullRequest['files'] =>
  files.map((f) => ({ filename: f.filename, status: f.status ?? 'modified', ...countLines(f.patch), ...definedCounts(f), patch: f.patch }));

type PullRequestControls = 'openPullRequest' | 'pushHead' | 'closePullRequest' | 'setCommitFiles' | 'addReviewComment';

/** What happens on GitHub without the App: pull requests opened, pushed to, closed; commits' trees; a person's comment. */
export function pullRequestControls(state: StandInState): Pick<GitHubStandIn, PullRequestControls> {
  return {
    openPullRequest: (fullName, input) => {
      const hosted = state.hostedRepository(fullName);
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
      const { hosted, pr } = state.pullOf(fullName, number);
      const before = pr.head.sha;
      pr.head.sha = head.sha;
      hosted.commits.add(head.sha);
      if (head.files) pr.files = withCounts(head.files);
      return before;
    },
    closePullRequest: (fullName, number, closeOptions = {}) => {
      const { pr } = state.pullOf(fullName, number);
      pr.state = 'closed';
      pr.merged = closeOptions.merged ?? false;
    },
    setCommitFiles: (fullName, sha, files) => {
      const hosted = state.hostedRepository(fullName);
      hosted.commits.add(sha);
      hosted.trees.set(sha, new Map(Object.entries(files)));
    },
    addReviewComment: (fullName, number, comment) => {
      const { hosted, pr } = state.pullOf(fullName, number);
      const parent = comment.inReplyTo === undefined ? undefined : hosted.comments.find((c) => c.id === comment.inReplyTo);
      const at = iso();
      const id = state.nextId();
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
  };
}

/** The state read back: a pull request, the check runs, the reviews and review comments. */
export function readBackControls(state: StandInState): Pick<GitHubStandIn, 'pullRequest' | 'checkRuns' | 'reviews' | 'reviewComments'> {
  return {
    pullRequest: (fullName, number) => state.hostedRepository(fullName).pulls.find((p) => p.number === number),
    checkRuns: (fullName) => state.hostedRepository(fullName).checkRuns,
    reviews: (fullName, number) => state.hostedRepository(fullName).reviews.filter((r) => r.pull_number === number),
    reviewComments: (fullName, number) => state.hostedRepository(fullName).comments.filter((c) => c.pull_number === number),
  };
}

type UserControls = 'addUser' | 'userTokens' | 'authorizeUser' | 'revokeUserTokens' | 'forgetAuthorization';

export function userControls(userAuth: UserAuth): Pick<GitHubStandIn, UserControls> {
  return {
    addUser: (user) => userAuth.addUser(user),
    userTokens: () => userAuth.userTokens(),
    authorizeUser: (login) => userAuth.authorizeUser(login),
    revokeUserTokens: (login) => userAuth.revokeUserTokens(login),
    forgetAuthorization: (login) => userAuth.forgetAuthorization(login),
  };
}

type InstallationControls =
  | 'addAccount'
  | 'installations'
  | 'appDeliveries'
  | 'uninstall'
  | 'suspendInstallation'
  | 'selectRepositories'
  | 'renameRepository'
  | 'setDefaultBranch'
  | 'redeliver';

export function installationControls(appInstallations: AppInstallations): Pick<GitHubStandIn, InstallationControls> {
  return {
    addAccount: (account) => appInstallations.addAccount(account),
    installations: () => appInstallations.list(),
    appDeliveries: () => appInstallations.deliveries(),
    uninstall: (installationId) => appInstallations.uninstall(installationId),
    suspendInstallation: (installationId, suspended) => appInstallations.suspend(installationId, suspended),
    selectRepositories: (installationId, change) => appInstallations.selectRepositories(installationId, change),
    renameRepository: (fullName, to) => appInstallations.renameRepository(fullName, to),
    setDefaultBranch: (fullName, branch) => appInstallations.setDefaultBranch(fullName, branch),
    redeliver: (deliveryId) => appInstallations.redeliver(deliveryId),
  };
}
