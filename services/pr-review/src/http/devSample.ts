import { AppError } from '@ars/errors';
import { ok, pathParam, requestBody, validateBody, type Router } from '@ars/http-app';
import type { PrReviewDeps } from '../review/deps.js';
import { reachRepo } from '../review/pullRequestAccess.js';
import { queueAttempt } from '../review/queueAttempt.js';
import { attemptView } from './startReview.js';

const parseSample = validateBody<{ repoId: string }>({
  type: 'object',
  required: ['repoId'],
  properties: { repoId: { type: 'string', minLength: 1, maxLength: 200 } },
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

/**
 * `POST /internal/dev/users/:userId/pr-reviews/sample` `{repoId}` → 201 `{pullRequest, attempt}`
 * (development only: 404 under `ARS_ENV=production`, as if it did not exist): on a repository of the
 * local source host, a branch with the sample change, an open pull request from it, and its first
 * review queued — so when this answers, the pull request's check run exists and is linked, and
 * `POST /pr-reviews/rerun` works. The development account asks for it.
 */
export function devSample(router: Router, deps: PrReviewDeps): void {
  router.post('/dev/users/:userId/pr-reviews/sample', async (ctx) => {
    if (deps.production) throw AppError.notFound(`No route for ${ctx.method} ${ctx.path}`);
    const userId = pathParam(ctx, 'userId');
    const body = parseSample(requestBody(ctx));
    const reach = await reachRepo(deps, userId, body.repoId);
    if (reach.kind === 'no-token' || reach.access.provider !== 'local')
      throw AppError.conflict('The sample pull request is made on the local source host only');
    const { fullName, installation } = reach.access;
    const host = deps.localHost;
    const repository = (await host.listRepositories(installation)).find((candidate) => candidate.fullName === fullName);
    const base = repository?.defaultBranch ?? 'main';
    await host.pushCommit(fullName, { branch: SAMPLE_BRANCH, from: base, files: SAMPLE_FILES, message: 'Add a sample change to review' });
    const pullRequest = await host.openPullRequest(fullName, { head: SAMPLE_BRANCH, base, title: SAMPLE_TITLE });
    const queued = await queueAttempt(deps, { userId, repoId: body.repoId, access: reach.access, onHost: reach.onHost, pullRequest, trigger: 'opened' });
    ok(
      ctx,
      {
        pullRequest: { repoId: body.repoId, number: pullRequest.number, url: pullRequest.url, headRef: pullRequest.headRef, headSha: pullRequest.headSha },
        attempt: attemptView(queued.attempt),
      },
      201,
    );
  });
}
