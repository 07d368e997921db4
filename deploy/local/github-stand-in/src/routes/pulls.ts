// Pull requests: `GET /repos/{o}/{r}/pulls/{n}` (the pull request, or its diff as text) and
// `GET …/pulls/{n}/files`.
import { randomBytes } from 'node:crypto';
import type { Answer } from '../httpAnswer.js';
import { pullJson } from '../json.js';
import type { StandInPullRequest } from '../records.js';
import { page, pullRequestOf, reachableRepository, type Route, type RouteContext } from '../route.js';

/** The pull request's diff as `git diff` writes it, from its files' patches. */
const diffOf = (pr: StandInPullRequest): string =>
  pr.files
    .map((f) => {
      const from = f.status === 'added' ? '/dev/null' : `a/${f.filename}`;
      const to = f.status === 'removed' ? '/dev/null' : `b/${f.filename}`;
      const body = f.patch === null ? `Binary files ${from} and ${to} differ` : `--- ${from}\n+++ ${to}\n${f.patch}`;
      return `diff --git a/${f.filename} b/${f.filename}\n${body}\n`;
    })
    .join('');

/** The pull request; with `Accept: application/vnd.github.diff` its diff. */
async function getPull(params: string[], context: RouteContext): Promise<Answer> {
  const hosted = reachableRepository(params, context);
  const pr = pullRequestOf(hosted, Number(params[3]));
  if ((context.req.headers.accept ?? '').includes('application/vnd.github.diff')) {
    return { status: 200, body: diffOf(pr), headers: { 'content-type': 'application/vnd.github.diff; charset=utf-8' } };
  }
  return { status: 200, body: pullJson(context.state.baseUrl, hosted, pr) };
}

async function listPullFiles(params: string[], context: RouteContext): Promise<Answer> {
  const pr = pullRequestOf(reachableRepository(params, context), Number(params[3]));
  const { items, headers } = page(context, pr.files);
  return {
    status: 200,
    body: items.map((f) => ({
      sha: randomBytes(20).toString('hex'),
      filename: f.filename,
      status: f.status,
      additions: f.additions,
      deletions: f.deletions,
      changes: f.additions + f.deletions,
      blob_url: `https://github.com/${params[1]}/${params[2]}/blob/${pr.head.sha}/${f.filename}`,
      ...(f.patch === null ? {} : { patch: f.patch }),
    })),
    headers,
  };
}

export const pullRoutes: Route[] = [
  ['GET', /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)$/, getPull],
  ['GET', /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)\/files$/, listPullFiles],
];
