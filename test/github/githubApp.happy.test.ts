// The GitHub App on the whole stack, against the GitHub stand-in speaking GitHub's REST API
// (installation tokens from an RS256 App JWT, user-to-server tokens, check runs, reviews, review
// comments), its web pages (sign-in, Authorize, the App's install page) and its signed webhooks.
//
// Connecting: sign in with GitHub; Connect GitHub installs the App on an organization and links it
// only after GitHub lists it for the user's token; its repositories listed by GET /repos and run on;
// a teammate who signs in sees them; a repository removed from the installation leaves the list and
// new runs on it are 404 (its runs stay readable); a forged installation_id at the setup callback is
// refused; Refresh withdraws what GitHub no longer shows; uninstalling takes everything away.
//
// PR reviews: the repository is a local bare one the stand-in names as clone_url, so the review agent
// (the stand-in harness in a real sandbox) clones it as it would clone from GitHub. Shown: a
// `pull_request opened` delivery queues a review whose report lands on GitHub; a redelivery queues
// nothing; a bad signature is 401; 403, 422 and 429 (with Retry-After) while reporting are waited
// out without losing the attempt; a 429 at rerun time is 503 with its Retry-After; an installation
// GitHub refuses a token for is 409.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RerunPrReviewData } from '@ars/contract';
import { signWebhookBody, startGitHubStandIn, type GitHubStandIn, type StandInUser } from '@ars/github-stand-in';
import { LocalSourceHost } from '@ars/source-host';
import { bearer, call, dataOf } from '../support/accounts.js';
import { automationClient, type AutomationClient } from '../support/automations.js';
import { GitHubBrowser } from '../support/gitHubBrowser.js';
import { mirroredRepo, type MirroredRepo } from '../support/githubPullRequests.js';
import { untilAttemptEnded } from '../support/prReviews.js';
import { RunsClient } from '../support/runs.js';
import { freePort, internalCaller, waitFor, startSystem, type System } from '@ars/testenv';

const APP_ID = '9191';
const APP_SLUG = 'agent-run-service';
const CLIENT = { clientId: 'Iv23.github-app-test', clientSecret: 'github-app-test-client-secret' };
const INSTALLATION = 4242;
const REFUSING_INSTALLATION = 4243;
const WEBHOOK_SECRET = randomBytes(24).toString('hex');
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const privatePem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();

const REVIEW_MD = ['@finding app.js "exec(" critical exec() runs a shell string built from input.', ''].join('\n');
const APP_JS = ['const { exec } = require("child_process");', 'exec("ls " + process.argv[2]);', ''].join('\n');

/** GitHub's people: an owner of Conn-Org, a member of it, someone of another organization, and the reviewer of Review-Org's pull requests. */
const USERS: StandInUser[] = [
  { id: 9001, login: 'octo-owner', name: 'Owner Octo', orgs: { 'Conn-Org': { role: 'admin', state: 'active' } } },
  { id: 9002, login: 'octo-member', name: 'Member Octo', orgs: { 'Conn-Org': { role: 'member', state: 'active' } } },
  { id: 9003, login: 'octo-stranger', name: 'Stranger Octo', orgs: { 'Other-Org': { role: 'admin', state: 'active' } } },
  {
    id: 9004,
    login: 'octo-reviewer',
    name: 'Reviewer Octo',
    orgs: { 'Review-Org': { role: 'member', state: 'active' }, 'Locked-Org': { role: 'member', state: 'active' } },
  },
];

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

interface GitHubConnectionAnswer {
  github: { installations: { externalId: number; repositories: { id: string; full_name: string }[] }[] };
}

/**
 * The PR-review user's GitHub reach: the reviewer's user token (GitHub's web flow, its end played by
 * the stand-in) handed to the catalog as the gateway hands it over at sign-in. Returns the repository
 * id of each full name.
 */
async function linkReviewer(): Promise<Map<string, string>> {
  const catalog = internalCaller({ url: system.stack.services.catalog.url, token: system.internalToken, caller: 'test' });
  const linked = await catalog<GitHubConnectionAnswer>('PUT', `/internal/users/${c.userId}/github`, github.authorizeUser('octo-reviewer'));
  expect(linked.status).toBe(200);
  return new Map(linked.data.github.installations.flatMap((installation) => installation.repositories.map((r) => [r.full_name, r.id] as const)));
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

let gatewayUrl: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ars-github-app-'));
  const gatewayPort = await freePort();
  gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  // Conn-Org's repositories are real bare repositories (a sandbox clones `api` for a run).
  const local = new LocalSourceHost(join(dir, 'conn'));
  const connRepositories = [];
  for (const name of ['api', 'web', 'ops']) {
    const created = await local.createRepository({ owner: 'Conn-Org', name, defaultBranch: 'main', files: { 'README.md': `# ${name}\n` } });
    connRepositories.push({ name, defaultBranch: 'main', cloneUrl: created.cloneUrl });
  }
  github = await startGitHubStandIn({
    appId: APP_ID,
    publicKey,
    installations: {},
    oauthApp: { ...CLIENT, name: 'Agent Run Service', callbackUrls: [`${gatewayUrl}/auth/callback/github`, `${gatewayUrl}/settings/github/callback`] },
    app: { slug: APP_SLUG, setupUrl: `${gatewayUrl}/settings/github/setup`, webhook: { url: `${gatewayUrl}/webhooks/github`, secret: WEBHOOK_SECRET } },
    users: USERS,
    accounts: [
      { login: 'Conn-Org', type: 'Organization', repositories: connRepositories },
      { login: 'Other-Org', type: 'Organization', repositories: [{ name: 'elsewhere', defaultBranch: 'main' }] },
    ],
  });
  system = await startSystem(
    {
      GITHUB_APP_ID: APP_ID,
      GITHUB_APP_PRIVATE_KEY: privatePem.replace(/\n/g, '\\n'),
      GITHUB_API_URL: github.url,
      GITHUB_WEB_URL: github.webUrl,
      GITHUB_CLIENT_ID: CLIENT.clientId,
      GITHUB_CLIENT_SECRET: CLIENT.clientSecret,
      GITHUB_APP_SLUG: APP_SLUG,
      GITHUB_ALLOWED_ORGS: 'Conn-Org,Other-Org',
      GITHUB_WEBHOOK_SECRET: WEBHOOK_SECRET,
      PR_REVIEW_REPORT_POLL_MS: '200',
    },
    { gatewayPort },
  );
  c = await automationClient(system.baseUrl);
  repo = await mirroredRepo(github, { dir, owner: 'Review-Org', name: 'shop', installationId: INSTALLATION, files: { 'README.md': '# shop\n' } });
  await mirroredRepo(github, { dir, owner: 'Locked-Org', name: 'vault', installationId: REFUSING_INSTALLATION, files: { 'README.md': '# vault\n' } });
  const reviewerRepos = await linkReviewer();
  repoId = reviewerRepos.get(repo.fullName) ?? '';
  refusedRepoId = reviewerRepos.get('Locked-Org/vault') ?? '';
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

/** A PAT made on the settings page (its form), for the API as that user. */
async function patOf(browser: GitHubBrowser): Promise<string> {
  const created = await browser.submit('/settings/api-keys', { name: 'github test', scopes: ['read', 'write'], expiresInDays: '1' });
  expect(created.status).toBe(201);
  return /<code id="token">([^<]+)<\/code>/.exec(created.body)?.[1] ?? '';
}

/** GitHub's id of the App's installation on Conn-Org. */
const connOrgInstallation = (): number => github.installations().find((installation) => installation.account.login === 'Conn-Org')?.id ?? 0;

const reposOf = async (token: string): Promise<{ id: string; full_name: string; installation_id: number }[]> =>
  dataOf(await call<{ repos: { id: string; full_name: string; installation_id: number }[] }>(`${system.baseUrl}/api/v1/svc/repos`, { headers: bearer(token) }))
    .repos;

describe('Connect GitHub: the App installed from the settings page, linked only once GitHub lists it for the user', () => {
  let owner: GitHubBrowser;
  let ownerToken: string;
  let member: GitHubBrowser;
  let memberToken: string;
  let apiRunId: string;

  test('sign in with GitHub, Connect GitHub, install on the organization with two of its repositories: the settings page and GET /repos list them', async () => {
    owner = new GitHubBrowser(gatewayUrl, github.webUrl, 'octo-owner');
    const signedIn = await owner.signIn();
    expect([signedIn.url, signedIn.status, signedIn.pagesSeen]).toEqual([`${gatewayUrl}/settings`, 200, ['sign-in', 'authorize']]);
    // Signing in with GitHub links the GitHub account; the App is on no account of the owner yet.
    expect(signedIn.body).toContain('GitHub account <strong>@octo-owner</strong>');
    expect(signedIn.body).toContain('GitHub shows this account no installation of the App');

    const connected = await owner.connect({ account: 'Conn-Org', repositories: ['api', 'web'] });
    expect([connected.url, connected.status, connected.pagesSeen]).toEqual([`${gatewayUrl}/settings`, 200, ['install']]);
    expect(connected.body).toContain('@octo-owner');
    expect(connected.body).toMatch(/<strong>Conn-Org<\/strong>: 2 repositories<ul>.*Conn-Org\/api.*Conn-Org\/web/s);
    // The installation webhook came first, through the one webhook URL (pr-review checks it, the catalog applies it).
    expect(github.appDeliveries()[0]).toMatchObject({ event: 'installation', status: 202 });

    ownerToken = await patOf(owner);
    expect((await reposOf(ownerToken)).map((r) => r.full_name)).toEqual(['Conn-Org/api', 'Conn-Org/web']);
  });

  test('a run on a connected repository clones it and succeeds', async () => {
    const runs = new RunsClient(system.baseUrl, [ownerToken]);
    const api = (await reposOf(ownerToken)).find((r) => r.full_name === 'Conn-Org/api');
    const started = await runs.started({ repoId: api?.id, prompt: '@shell cat README.md' });
    const { run, events } = await runs.waitFor(started.runId, undefined, 120_000);
    expect(run).toMatchObject({ status: 'success' });
    expect(JSON.stringify(events)).toContain('# api');
    apiRunId = run.runId;
  });

  test('a teammate who signs in with GitHub sees the installation’s repositories (rechecked at sign-in, no Connect)', async () => {
    member = new GitHubBrowser(gatewayUrl, github.webUrl, 'octo-member');
    expect((await member.signIn()).body).toContain('Conn-Org');
    memberToken = await patOf(member);
    expect((await reposOf(memberToken)).map((r) => r.full_name)).toEqual(['Conn-Org/api', 'Conn-Org/web']);
  });

  test('installation_repositories removed: the repository leaves GET /repos, a new run on it is 404, its earlier run stays readable', async () => {
    const api = (await reposOf(ownerToken)).find((r) => r.full_name === 'Conn-Org/api');
    await github.selectRepositories(connOrgInstallation(), { remove: ['api'] });
    expect(github.appDeliveries().at(-1)).toMatchObject({ event: 'installation_repositories', status: 202 });
    expect((await reposOf(ownerToken)).map((r) => r.full_name)).toEqual(['Conn-Org/web']);
    expect((await reposOf(memberToken)).map((r) => r.full_name)).toEqual(['Conn-Org/web']);
    const runs = new RunsClient(system.baseUrl, [ownerToken]);
    const refused = await runs.start({ repoId: api?.id, prompt: 'hello' }, `gone-${randomBytes(4).toString('hex')}`);
    expect([refused.status, refused.body.ok ? null : refused.body.error.code]).toEqual([404, 'NOT_FOUND']);
    expect(dataOf(await runs.get(apiRunId)).run).toMatchObject({ runId: apiRunId, status: 'success' });
  });

  test('a forged installation_id at the setup callback is refused (403) and links nothing; a setup answer without this user’s state is 400', async () => {
    const stranger = new GitHubBrowser(gatewayUrl, github.webUrl, 'octo-stranger');
    await stranger.signIn();
    const toGitHub = await stranger.go(`${gatewayUrl}/settings/github/connect`, {});
    const state = new URL(toGitHub.headers.get('location') ?? '').searchParams.get('state') ?? '';
    const conn = connOrgInstallation();
    const forgedUrl = `${gatewayUrl}/settings/github/setup?installation_id=${conn}&setup_action=install&state=${state}`;
    const forged = await stranger.follow(await stranger.go(forgedUrl), forgedUrl);
    expect([forged.status, forged.pagesSeen]).toEqual([403, []]);
    expect(forged.body).toContain(`GitHub does not show installation ${conn} to your GitHub account @octo-stranger`);
    expect(await reposOf(await patOf(stranger))).toEqual([]);

    // The owner's state, replayed by the stranger; and no state at all.
    const ownerState = new URL((await owner.go(`${gatewayUrl}/settings/github/connect`, {})).headers.get('location') ?? '').searchParams.get('state') ?? '';
    for (const query of [`installation_id=${conn}&setup_action=install&state=${ownerState}`, `installation_id=${conn}&setup_action=install`]) {
      const answer = await stranger.page(`/settings/github/setup?${query}`);
      expect(answer.status).toBe(400);
      expect(answer.body).toContain('does not belong to a connection you started here');
    }
  });

  test('Refresh: someone GitHub no longer shows the organization to loses its repositories', async () => {
    github.addUser({ id: 9002, login: 'octo-member', orgs: {} });
    const refreshed = await member.submit('/settings/github/refresh');
    expect([refreshed.url, refreshed.status]).toEqual([`${gatewayUrl}/settings`, 200]);
    expect(refreshed.body).toContain('GitHub shows this account no installation of the App');
    expect(await reposOf(memberToken)).toEqual([]);
  });

  test('installation deleted: every repository gone from GET /repos and the settings page', async () => {
    await github.uninstall(connOrgInstallation());
    expect(github.appDeliveries().at(-1)).toMatchObject({ event: 'installation', status: 202 });
    expect(await reposOf(ownerToken)).toEqual([]);
    expect((await owner.page('/settings')).body).toContain('GitHub shows this account no installation of the App');
  });
});

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
