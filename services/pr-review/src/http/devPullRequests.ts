import { AppError } from '@ars/errors';
import { SourceHostError } from '@ars/source-host';
import { ok, pathParam, requestBody, validateBody, type Router } from '@ars/http-app';
import type { PrReviewDeps } from '../review/deps.js';
import { hostFailure } from '../review/hostFailures.js';
import { reachRepo } from '../review/pullRequestAccess.js';
import { queueAttempt } from '../review/queueAttempt.js';
import { attemptView } from './startReview.js';

const parseSample = validateBody<{ repoId: string }>({
  type: 'object',
  required: ['repoId'],
  properties: { repoId: { type: 'string', minLength: 1, maxLength: 200 } },
});

const parsePullRequest = validateBody<{ repoId: string; head: string; base?: string; title?: string }>({
  type: 'object',
  required: ['repoId', 'head'],
  properties: {
    repoId: { type: 'string', minLength: 1, maxLength: 200 },
    head: { type: 'string', minLength: 1, maxLength: 255 },
    base: { type: 'string', minLength: 1, maxLength: 255 },
    title: { type: 'string', minLength: 1, maxLength: 500 },
  },
  additionalProperties: false,
});

export const SAMPLE_BRANCH = 'ars/sample-review';
export const SAMPLE_TITLE = 'Sample: a change for the review to look at';

/**
 * The sample change: code with two problems, and the repository's review instructions. The
 * `@finding` lines are directives of the development stand-in agents (each reports that finding on
 * the line holding its text); a real agent reads them as part of the instructions.
 */
export const SAMPLE_FILES: Readonly<Record<string, string>> = {
  'sample/greeting.js': [
    '// A sample change for the review to look at.',
    'function greet(name) {',
    "  eval('console.log(\"Hello, ' + name + '\")');",
    '}',
    'var unused = 1;',
    'module.exports = { greet };',
    '',
  ].join('\n'),
  '.ars/review.md': [
    '# Review instructions',
    'Look for strings run as code and for variables that are never read.',
    '',
    'Directives of the development stand-in agents:',
    '@finding sample/greeting.js "eval(" high eval() runs a string built from its input as code; call console.log directly.',
    '@finding sample/greeting.js "var unused" low `unused` is never read.',
    '',
  ].join('\n'),
};

type Opened = { pullRequest: { repoId: string; number: number; url: string; headRef: string; headSha: string }; attempt: ReturnType<typeof attemptView> };

/**
 * Opens a pull request on the local source host from `head` into `base` (default: the repository's
 * default branch) and queues its first review, as GitHub's `pull_request opened` delivery would.
 * 409 for a repository of another host; the host's refusals (a branch that does not exist, one pull
 * request per head and base) are 409 too, with its words.
 */
async function openReviewedPullRequest(
  deps: PrReviewDeps,
  userId: string,
  input: { repoId: string; head: string; base?: string; title?: string; prepare?: (base: string, fullName: string) => Promise<unknown> },
): Promise<Opened> {
  const reach = await reachRepo(deps, userId, input.repoId);
  if (reach.kind === 'no-token' || reach.access.provider !== 'local') throw AppError.conflict('Pull requests are opened here on the local source host only');
  const { fullName, installation } = reach.access;
  const host = deps.localHost;
  const repository = (await host.listRepositories(installation)).find((candidate) => candidate.fullName === fullName);
  const base = input.base ?? repository?.defaultBranch ?? 'main';
  const pullRequest = await (async () => {
    await input.prepare?.(base, fullName);
    return host.openPullRequest(fullName, { head: input.head, base, title: input.title ?? input.head });
  })().catch((error: unknown) => {
    if (error instanceof SourceHostError && error.kind === 'unprocessable') throw AppError.conflict(`The pull request could not be opened: ${error.message}`);
    throw hostFailure(error, fullName);
  });
  const queued = await queueAttempt(deps, { userId, repoId: input.repoId, access: reach.access, onHost: reach.onHost, pullRequest, trigger: 'opened' });
  return {
    pullRequest: { repoId: input.repoId, number: pullRequest.number, url: pullRequest.url, headRef: pullRequest.headRef, headSha: pullRequest.headSha },
    attempt: attemptView(queued.attempt),
  };
}

/**
 * Development only (404 under `ARS_ENV=production`, as if they did not exist), on repositories of the
 * local source host, which sends no webhooks:
 * - `POST /internal/dev/users/:userId/pr-reviews/pull-requests` `{repoId, head, base?, title?}` → 201
 *   `{pullRequest, attempt}`: a pull request from an existing branch, its first review queued (the
 *   admin command `open-pull-request`);
 * - `POST /internal/dev/users/:userId/pr-reviews/sample` `{repoId}` → the same for branch
 *   `ars/sample-review`, written first with SAMPLE_FILES (the development account asks for it), so
 *   when it answers, the check run exists and is linked and `POST /pr-reviews/rerun` works.
 */
export function devPullRequests(router: Router, deps: PrReviewDeps): void {
  router.post('/dev/users/:userId/pr-reviews/pull-requests', async (ctx) => {
    if (deps.production) throw AppError.notFound(`No route for ${ctx.method} ${ctx.path}`);
    const body = parsePullRequest(requestBody(ctx));
    ok(ctx, await openReviewedPullRequest(deps, pathParam(ctx, 'userId'), body), 201);
  });

  router.post('/dev/users/:userId/pr-reviews/sample', async (ctx) => {
    if (deps.production) throw AppError.notFound(`No route for ${ctx.method} ${ctx.path}`);
    const userId = pathParam(ctx, 'userId');
    const body = parseSample(requestBody(ctx));
    const opened = await openReviewedPullRequest(deps, userId, {
      repoId: body.repoId,
      head: SAMPLE_BRANCH,
      title: SAMPLE_TITLE,
      prepare: async (base, fullName) => {
        await deps.localHost.pushCommit(fullName, { branch: SAMPLE_BRANCH, from: base, files: SAMPLE_FILES, message: 'Add a sample change to review' });
      },
    });
    ok(ctx, opened, 201);
  });
}
