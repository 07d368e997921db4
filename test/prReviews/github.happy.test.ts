// PR reviews through a GitHub App on the whole stack, against the GitHub stand-in speaking GitHub's
// REST API (installation tokens from an RS256 App JWT, check runs, reviews, review comments) and its
// signed webhooks. The repository is a local bare one the stand-in names as clone_url, so the review
// agent (the stand-in harness in a real sandbox) clones it as it would clone from GitHub. Shown: a
// `pull_request opened` delivery queues a review whose report lands on GitHub; a redelivery queues
// nothing; a bad signature is 401; 403, 422 and 429 (with Retry-After) while reporting are waited
// out without losing the attempt; a 429 at rerun time is 503 with its Retry-After; an installation
// GitHub refuses a token for is 409.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RerunPrReviewData } from '@ars/contract';
import { signWebhookBody, startGitHubStandIn, type GitHubStandIn } from '@ars/github-stand-in';
import { createLogger } from '@ars/logger';
import { connectMongo } from '@ars/mongo';
import { call, dataOf } from '../support/accounts.js';
import { automationClient, type AutomationClient } from '../support/automations.js';
import { mirroredRepo, type MirroredRepo } from '../support/githubPullRequests.js';
import { untilAttemptEnded } from '../support/prReviews.js';
import { waitFor, startSystem, type System } from '@ars/testenv';

const APP_ID = '9191';
const INSTALLATION = 4242;
const REFUSING_INSTALLATION = 4243;
const WEBHOOK_SECRET = randomBytes(24).toString('hex');
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const privatePem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();

const REVIEW_MD = ['@finding app.js "exec(" critical exec() runs a shell string built from input.', ''].join('\n');
const APP_JS = ['const { exec } = require("child_process");', 'exec("ls " + process.argv[2]);', ''].join('\n');

let dir: string;
let github: GitHubStandIn;
let system: System;
let c: AutomationClient;
let repo: MirroredRepo;
let repoId: string;
let refusedRepoId: string;
let prNumber: number;

interface DeliveryAnswer {
  delivery: { id: string; outcome: { kind: string; attemptId?: string; why?: string }; duplicate: boolean };
}

/** A GitHub installation of the user in the catalog's database, with one repository (what the App's installation flow records). */
async function linkInstallation(externalId: number, fullName: string, cloneUrl: string): Promise<string> {
  const mongo = await connectMongo({
    url: system.mongoUrl,
    dbName: 'ars_catalog',
    logger: createLogger({ service: 'test', level: 'silent' }),
    appName: 'test',
  });
  try {
    const { db } = mongo;
    const counter = await db
      .collection<{ _id: string; seq: number }>('counters')
      .findOneAndUpdate({ _id: 'installations' }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after' });
    const installationId = counter?.seq ?? 0;
    const [account = ''] = fullName.split('/');
    await db
      .collection('installations')
      .insertOne({ _id: installationId as never, userId: c.userId, account, provider: 'github', externalId, createdAt: new Date() });
    const id = randomBytes(12).toString('hex');
    await db.collection('repos').insertOne({
      _id: id as never,
      userId: c.userId,
      installationId,
      full_name: fullName,
      default_branch: 'main',
      root_directory: null,
      clone_url: cloneUrl,
      createdAt: new Date(),
    });
    return id;
  } finally {
    await mongo.close();
  }
}

/** POSTs a delivery to the gateway as GitHub does (its own id, so a redelivery can repeat it). */
async function deliver(event: string, payload: unknown, options: { deliveryId?: string; secret?: string } = {}) {
  const body = JSON.stringify(payload);
  return call<DeliveryAnswer>(`${system.baseUrl}/webhooks/github`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': options.deliveryId ?? randomBytes(8).toString('hex'),
      'x-hub-signature-256': signWebhookBody(options.secret ?? WEBHOOK_SECRET, body),
    },
    body,
  });
}

const openedPayload = () => {
  const pr = github.pullRequest(repo.fullName, prNumber);
  return {
    action: 'opened',
    number: prNumber,
    installation: { id: INSTALLATION },
    repository: { full_name: repo.fullName },
    pull_request: { number: prNumber, head: { sha: pr?.head.sha, ref: pr?.head.ref } },
  };
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ars-github-review-'));
  github = await startGitHubStandIn({ appId: APP_ID, publicKey, installations: {} });
  system = await startSystem({
    GITHUB_APP_ID: APP_ID,
    GITHUB_APP_PRIVATE_KEY: privatePem.replace(/\n/g, '\\n'),
    GITHUB_API_URL: github.url,
    GITHUB_WEBHOOK_SECRET: WEBHOOK_SECRET,
    PR_REVIEW_REPORT_POLL_MS: '200',
  });
  c = await automationClient(system.baseUrl);
  repo = await mirroredRepo(github, { dir, owner: 'Review-Org', name: 'shop', installationId: INSTALLATION, files: { 'README.md': '# shop\n' } });
  repoId = await linkInstallation(INSTALLATION, repo.fullName, repo.cloneUrl);
  const refused = await mirroredRepo(github, {
    dir,
    owner: 'Locked-Org',
    name: 'vault',
    installationId: REFUSING_INSTALLATION,
    files: { 'README.md': '# vault\n' },
  });
  refusedRepoId = await linkInstallation(REFUSING_INSTALLATION, refused.fullName, refused.cloneUrl);
  repo.git('checkout', '--quiet', '-b', 'feature/exec');
  repo.commitAndPush({ 'app.js': APP_JS, '.ars/review.md': REVIEW_MD }, 'Run ls on the argument');
  prNumber = await repo.openPullRequest('feature/exec', 'Run ls on the argument');
}, 180_000);
afterAll(async () => {
  await system?.stop();
  await github?.close();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

const rerun = (body: unknown) => call<RerunPrReviewData>(`${c.api}/pr-reviews/rerun`, { method: 'POST', headers: c.auth, json: body });

describe('a signed pull_request opened delivery queues a review whose report lands on GitHub', () => {
  let attemptId: string;
  test('202 queued; the attempt ends with one review, a marked comment on the finding’s line, and the check run completed as a failure', async () => {
    const answer = await deliver('pull_request', openedPayload(), { deliveryId: 'delivery-opened' });
    expect(answer.status).toBe(202);
    expect(dataOf(answer).delivery).toMatchObject({ id: 'delivery-opened', outcome: { kind: 'queued' }, duplicate: false });
    attemptId = dataOf(answer).delivery.outcome.attemptId ?? '';
    const ended = await untilAttemptEnded(system, c, attemptId);
    expect([ended.status, ended.error]).toEqual(['completed', null]);
    const [checkRun] = github.checkRuns(repo.fullName);
    expect(checkRun).toMatchObject({ name: 'ARS review', external_id: attemptId, status: 'completed', conclusion: 'failure' });
    expect(github.reviews(repo.fullName, prNumber)).toHaveLength(1);
    const comments = github.reviewComments(repo.fullName, prNumber);
    expect(comments.map((comment) => [comment.user, comment.path, comment.line])).toEqual([['agent-run-service[bot]', 'app.js', 2]]);
    expect(comments[0]?.body).toMatch(/<!-- ars:f:[0-9a-f]{24} -->/);
    // The App authenticated with its JWT and used installation tokens.
    expect(github.jwts.length > 0 && github.jwts.every((jwt) => jwt.valid)).toBe(true);
    expect(github.minted.some((token) => token.installationId === INSTALLATION)).toBe(true);
  });

  test('a redelivery of the same delivery id answers the first outcome and queues nothing', async () => {
    const again = await deliver('pull_request', openedPayload(), { deliveryId: 'delivery-opened' });
    expect(dataOf(again).delivery).toEqual({ id: 'delivery-opened', outcome: { kind: 'queued', attemptId }, duplicate: true });
    expect(github.checkRuns(repo.fullName)).toHaveLength(1);
  });

  test('a bad signature is 401 and queues nothing; an event that is not reviewed is ignored', async () => {
    const forged = await deliver('pull_request', openedPayload(), { secret: 'not-the-secret-at-all' });
    expect([forged.status, forged.body]).toEqual([401, { ok: false, error: { code: 'UNAUTHORIZED', message: 'Invalid webhook signature' } }]);
    const closed = await deliver('pull_request', { ...openedPayload(), action: 'closed' });
    expect(dataOf(closed).delivery.outcome).toEqual({ kind: 'ignored', why: 'pull_request closed is not reviewed' });
    expect(github.checkRuns(repo.fullName)).toHaveLength(1);
  });
});

describe('a check_run rerequested delivery of our check run (the Re-run button on GitHub) queues a rerun', () => {
  test('the stand-in’s signed delivery: 202, and a new check run on the head completes', async () => {
    // A copy: the stand-in's list is live.
    const before = [...github.checkRuns(repo.fullName)];
    const ours = before.at(-1);
    const delivery = await github.deliverWebhook(
      { url: `${system.baseUrl}/webhooks/github`, secret: WEBHOOK_SECRET },
      { event: 'check_run', action: 'rerequested', fullName: repo.fullName, checkRunId: ours?.id ?? 0 },
    );
    expect(delivery.status).toBe(202);
    // Its outcome, read back by redelivering it (answered, not handled again).
    const redelivered = await call<DeliveryAnswer>(`${system.baseUrl}/webhooks/github`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'check_run',
        'x-github-delivery': delivery.deliveryId,
        'x-hub-signature-256': delivery.signature,
      },
      body: delivery.body,
    });
    expect(dataOf(redelivered).delivery).toMatchObject({ outcome: { kind: 'queued' }, duplicate: true });
    const latest = await waitFor(
      'the rerun’s check run to complete',
      () => {
        const runs = github.checkRuns(repo.fullName);
        return runs.length > before.length && runs.at(-1)?.status === 'completed' ? runs.at(-1) : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    expect(latest).toMatchObject({ name: 'ARS review', head_sha: ours?.head_sha, conclusion: 'failure' });
    // The check run completes before the attempt records its report: wait for the attempt itself.
    expect((await untilAttemptEnded(system, c, latest?.external_id ?? '')).status).toBe('completed');
  });
});

describe('GitHub refusing while the report is made (429 with Retry-After, 422, 403) is waited out without losing the attempt', () => {
  test('a push, its synchronize review: every refused call is made again and the report lands once', async () => {
    repo.commitAndPush({ 'app.js': `// header\n${APP_JS}`, 'util.js': 'exec("rm " + x);\n' }, 'Shift app.js');
    const before = github.pullRequest(repo.fullName, prNumber)?.head.sha;
    const head = await repo.syncHead(prNumber);
    expect(head).not.toBe(before);
    const answer = await deliver('pull_request', { ...openedPayload(), action: 'synchronize', before });
    const attemptId = dataOf(answer).delivery.outcome.attemptId ?? '';
    expect(attemptId).not.toBe('');
    // Armed after the attempt started: these hit its report.
    const seenBefore = github.requests.length;
    github.failNext({ method: 'GET', path: new RegExp(`/pulls/${prNumber}/comments$`), status: 429, retryAfterSeconds: 1 });
    github.failNext({ method: 'GET', path: new RegExp(`/pulls/${prNumber}/files$`), status: 422 });
    github.failNext({ method: 'PATCH', path: /\/check-runs\/\d+$/, status: 403 });
    const ended = await untilAttemptEnded(system, c, attemptId, 180_000);
    expect([ended.status, ended.error === null || ended.status === 'completed']).toEqual(['completed', true]);
    // Each refused call was made again (the report is made again from the start after each refusal).
    const seen = github.requests.slice(seenBefore).map((request) => request.split('?')[0] ?? '');
    const count = (pattern: RegExp) => seen.filter((request) => pattern.test(request)).length;
    expect(count(new RegExp(`^GET /repos/${repo.fullName}/pulls/${prNumber}/comments$`))).toBeGreaterThanOrEqual(3);
    expect(count(new RegExp(`^GET /repos/${repo.fullName}/pulls/${prNumber}/files$`))).toBeGreaterThanOrEqual(2);
    expect(count(new RegExp(`^PATCH /repos/${repo.fullName}/check-runs/\\d+$`))).toBeGreaterThanOrEqual(2);
    const latest = github.checkRuns(repo.fullName).at(-1);
    expect(latest).toMatchObject({ head_sha: head, external_id: attemptId, status: 'completed', conclusion: 'failure' });
    // The finding moved down one line: persisting, so its comment is not repeated.
    expect(github.reviewComments(repo.fullName, prNumber).filter((comment) => comment.user === 'agent-run-service[bot]')).toHaveLength(1);
  });
});

describe('POST /pr-reviews/rerun on a GitHub repository: queued, 503 while GitHub rate limits, 409 without a token', () => {
  test('a rerun answers every field and its attempt completes', async () => {
    const answer = await rerun({ repoId, prNumber });
    expect(answer.status).toBe(200);
    const data = dataOf(answer);
    expect(data).toMatchObject({
      queued: true,
      started: true,
      deferred: false,
      repoId,
      prNumber,
      runtimeProvider: 'automations-engine',
      versionFallbackUsed: false,
    });
    expect((await untilAttemptEnded(system, c, data.workflowRunId ?? '')).status).toBe('completed');
  });

  test('GitHub answering 429 with Retry-After while the rerun looks at the pull request: 503 SERVICE_UNAVAILABLE with that Retry-After, nothing queued', async () => {
    const checkRuns = github.checkRuns(repo.fullName).length;
    github.failNext({ method: 'GET', path: new RegExp(`/pulls/${prNumber}$`), status: 429, retryAfterSeconds: 7, times: 5 });
    const answer = await rerun({ repoId, prNumber });
    expect([answer.status, answer.body.ok ? null : answer.body.error.code, answer.headers.get('retry-after')]).toEqual([503, 'SERVICE_UNAVAILABLE', '7']);
    expect(github.checkRuns(repo.fullName)).toHaveLength(checkRuns);
  });

  test('an installation GitHub refuses a token for: 409 No source-host access token', async () => {
    github.failNext({ method: 'POST', path: `/app/installations/${REFUSING_INSTALLATION}/access_tokens`, status: 403, times: 5 });
    const answer = await rerun({ repoId: refusedRepoId, prNumber: 1 });
    expect([answer.status, answer.body]).toEqual([
      409,
      { ok: false, error: { code: 'CONFLICT', message: 'No source-host access token for Locked-Org/vault' } },
    ]);
  });
});
