// GitHub's JSON shapes of what the stand-in hosts, made from its records. The `url` fields need the
// server's base URL and a check run's `app` the App's bot login: both are given.
import type { StandInCheckRun, StandInPullRequest, StandInReviewComment } from './records.js';
import { fullNameOf, type HostedRepository } from './state.js';

/** GitHub's timestamps: ISO 8601 to the second. */
export const iso = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

export const user = (login: string) => ({
  login,
  id: login.length * 1000 + 7,
  node_id: `U_${login}`,
  type: login.endsWith('[bot]') ? 'Bot' : 'User',
  site_admin: false,
});

export const installationJson = (hosted: HostedRepository) => ({ id: hosted.installationId, node_id: `MDIz_${hosted.installationId}` });

export function repositoryJson(baseUrl: string, hosted: HostedRepository) {
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
}

export function pullJson(baseUrl: string, hosted: HostedRepository, pr: StandInPullRequest) {
  const fullName = fullNameOf(hosted);
  const branch = (b: { ref: string; sha: string }) => ({
    label: `${hosted.repo.owner}:${b.ref}`,
    ref: b.ref,
    sha: b.sha,
    user: user(hosted.repo.owner),
    repo: repositoryJson(baseUrl, hosted),
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
}

/** A check run; its `app` is the App whose bot is `botLogin`. */
export function checkRunJson(baseUrl: string, hosted: HostedRepository, run: StandInCheckRun, botLogin: string) {
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
}

export function commentJson(baseUrl: string, hosted: HostedRepository, c: StandInReviewComment) {
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
}
