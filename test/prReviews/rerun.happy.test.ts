// PR reviews on the whole stack through HTTP, on the local source host with real review agents (the
// stand-in harness in a sandbox, its findings from `@finding` directives in the repository's
// `.ars/review.md`): a first review when a pull request opens, `POST /pr-reviews/rerun` answering
// every field, a rerun deferred behind a live attempt on the same head, a push that shifts lines
// (persisting findings never commented twice, a removed problem replied "fixed"), and every 400, 404
// and 409 of the contract that the local host can show.
import { call, dataOf } from '../support/accounts.js';
import { automationClient, type AutomationClient } from '../support/automations.js';
import { firstReview, attemptOf, reviewedRepo, untilAttemptEnded, type AttemptView, type ReviewedRepo } from '../support/prReviews.js';
import { createLogger } from '@ars/logger';
import { connectMongo } from '@ars/mongo';
import type { RerunPrReviewData } from '@ars/contract';
import type { PullRequest } from '@ars/source-host';
import { sharedSystem } from '@ars/testenv';

const system = sharedSystem();

const APP_LOGIN = 'agent-run-service[bot]';
const REVIEW_MD = [
  '# Review instructions',
  '@finding app.js "danger(" high Never pass user input to danger().',
  '@finding app.js "legacy(" medium legacy() is deprecated; use modern().',
  '',
].join('\n');
const APP_JS = ['const input = process.argv[2];', 'danger(input);', 'legacy();', 'module.exports = input;', ''].join('\n');
const APP_JS_SHIFTED = ['// Entry point.', "'use strict';", '', 'const input = process.argv[2];', 'danger(input);', 'module.exports = input;', ''].join('\n');

interface ReviewFindingView {
  fingerprint: string;
  state: string;
  severity: string;
  path: string;
  line: number | null;
  title: string | null;
  message: string;
}

let c: AutomationClient;
let repo: ReviewedRepo;
let pr: PullRequest;
let first: AttemptView;

const rerun = (body: unknown, raw?: string) =>
  call<RerunPrReviewData>(`${c.api}/pr-reviews/rerun`, {
    method: 'POST',
    headers: { ...c.auth, 'content-type': 'application/json' },
    body: raw ?? JSON.stringify(body),
  });

async function findingsOf(attempt: AttemptView): Promise<ReviewFindingView[]> {
  const answer = await call<{ run: { reviewFindings: ReviewFindingView[] } | null }>(
    `${c.api}/automations/${attempt.automationId}/runs/${attempt.automationRunId ?? ''}`,
    { headers: c.auth },
  );
  return dataOf(answer).run?.reviewFindings ?? [];
}

const byMessage = (findings: ReviewFindingView[]) => Object.fromEntries(findings.map((f) => [f.message.split(' ')[0] ?? '', f]));
const rootComments = async () => (await repo.host.listReviewComments(repo.ref, pr.number)).filter((comment) => comment.inReplyToId === null);

beforeAll(async () => {
  c = await automationClient(system().baseUrl);
  const repos = dataOf(await call<{ repos: { id: string; full_name: string }[] }>(`${c.api}/repos`, { headers: c.auth })).repos;
  const fullName = repos.find((candidate) => candidate.id === c.repoId)?.full_name ?? '';
  repo = await reviewedRepo(system(), fullName);
  repo.git('checkout', '--quiet', '-b', 'feature/review');
  repo.commitAndPush({ 'app.js': APP_JS, '.ars/review.md': REVIEW_MD }, 'Add app.js');
  pr = await repo.openPullRequest('feature/review', 'Add app.js');
  first = await firstReview(system(), c, pr.number);
}, 120_000);

describe('a first review: one review with a marked comment per finding on the diff, the check run completed with its conclusion, summary and annotations', () => {
  test('the attempt reports two new findings on the host and in the automation run detail', async () => {
    const ended = await untilAttemptEnded(system(), c, first.id);
    expect([ended.status, ended.error]).toEqual(['completed', null]);
    const checkRun = await repo.host.readCheckRun(repo.fullName, first.checkRunId ?? 0);
    expect(checkRun).toMatchObject({ name: 'ARS review', headSha: pr.headSha, externalId: first.id, status: 'completed', conclusion: 'failure' });
    expect(checkRun?.output?.title).toBe('2 new, 0 persisting, 0 fixed');
    expect(checkRun?.annotations.map((a) => [a.path, a.startLine, a.level])).toEqual([
      ['app.js', 2, 'failure'],
      ['app.js', 3, 'warning'],
    ]);
    const comments = await rootComments();
    expect(comments.map((comment) => [comment.author, comment.path, comment.line])).toEqual([
      [APP_LOGIN, 'app.js', 2],
      [APP_LOGIN, 'app.js', 3],
    ]);
    expect(comments.every((comment) => /<!-- ars:f:[0-9a-f]{24} -->/.test(comment.body))).toBe(true);
    const findings = byMessage(await findingsOf(ended));
    expect(findings.Never).toMatchObject({ state: 'new', severity: 'high', path: 'app.js', line: 2 });
    expect(findings['legacy()']).toMatchObject({ state: 'new', severity: 'medium', path: 'app.js', line: 3 });
  });

  test('the review automation is the account’s like any other: listed, named, its run holding the findings', async () => {
    const listed = dataOf(await call<{ automations: { id: string; name: string }[] }>(`${c.api}/automations`, { headers: c.auth })).automations;
    expect(listed).toContainEqual(expect.objectContaining({ id: first.automationId, name: 'Pull request review' }));
  });
});

describe('POST /pr-reviews/rerun answers every field of RerunPrReviewData, and a second rerun while the first runs is deferred', () => {
  let started: RerunPrReviewData;
  let deferred: RerunPrReviewData;
  test('the first rerun starts at once; the second is queued behind it, its automation run held (pending)', async () => {
    const one = await rerun({ repoId: c.repoId, prNumber: pr.number });
    const two = await rerun({ repoId: c.repoId, prNumber: pr.number });
    expect([one.status, two.status]).toEqual([200, 200]);
    started = dataOf(one);
    deferred = dataOf(two);
    expect(started).toEqual({
      queued: true,
      jobRunId: expect.any(String),
      prNumber: pr.number,
      repoId: c.repoId,
      started: true,
      deferred: false,
      reason: null,
      status: expect.stringMatching(/^(pending|running)$/),
      runtimeProvider: 'automations-engine',
      runtimeRunId: started.jobRunId,
      workflowRunId: expect.any(String),
      versionFallbackUsed: false,
    });
    expect(deferred).toMatchObject({
      queued: true,
      started: false,
      deferred: true,
      status: 'pending',
      reason: `queued behind attempt ${started.workflowRunId ?? ''} on the same head commit`,
    });
    expect(deferred.jobRunId).not.toBe(started.jobRunId);
  });

  test('both attempts end with their findings persisting, and no finding is commented twice', async () => {
    const one = await untilAttemptEnded(system(), c, started.workflowRunId ?? '');
    const two = await untilAttemptEnded(system(), c, deferred.workflowRunId ?? '');
    expect([one.status, two.status]).toEqual(['completed', 'completed']);
    for (const attempt of [one, two]) {
      expect(Object.values(byMessage(await findingsOf(attempt))).map((f) => f.state)).toEqual(['persisting', 'persisting']);
    }
    expect((await rootComments()).length).toBe(2);
    const latest = await repo.host.latestCheckRun(repo.ref, pr.headSha, 'ARS review');
    expect(latest).toMatchObject({ externalId: two.id, status: 'completed', conclusion: 'failure' });
  });
});

describe('versionFallbackUsed: the review being re-run was made by a version of the review automation that is no longer published', () => {
  test('after a new version is published the first rerun says so and runs the new one; the next one does not', async () => {
    const published = await call<{ automation: { publishedVersion: { id: string; versionNumber: number } } }>(
      `${c.api}/automations/${first.automationId}/publish`,
      { method: 'POST', headers: c.auth },
    );
    expect(dataOf(published).automation.publishedVersion.versionNumber).toBe(2);
    const fallback = dataOf(await rerun({ repoId: c.repoId, prNumber: pr.number }));
    expect([fallback.deferred, fallback.versionFallbackUsed]).toEqual([false, true]);
    const detail = dataOf(
      await call<{ run: { versionNumber: number } }>(`${c.api}/automations/${first.automationId}/runs/${fallback.jobRunId ?? ''}`, { headers: c.auth }),
    );
    expect(detail.run.versionNumber).toBe(2);
    await untilAttemptEnded(system(), c, fallback.workflowRunId ?? '');
    const next = dataOf(await rerun({ repoId: c.repoId, prNumber: pr.number }));
    expect(next.versionFallbackUsed).toBe(false);
    expect((await untilAttemptEnded(system(), c, next.workflowRunId ?? '')).status).toBe('completed');
  });
});

describe('a push that shifts lines: persisting findings keep their comment, a removed problem is replied "fixed"', () => {
  test('the review of the new head: danger() persisting on its new line, legacy() fixed with a reply in its thread', async () => {
    const head = repo.commitAndPush({ 'app.js': APP_JS_SHIFTED }, 'Shift app.js down, drop legacy()');
    const review = await firstReview(system(), c, pr.number);
    expect(review.headSha).toBe(head);
    const ended = await untilAttemptEnded(system(), c, review.id);
    expect(ended.status).toBe('completed');
    const findings = byMessage(await findingsOf(ended));
    expect(findings.Never).toMatchObject({ state: 'persisting', line: 5 });
    expect(findings['legacy()']).toMatchObject({ state: 'fixed', line: null });
    const comments = await repo.host.listReviewComments(repo.ref, pr.number);
    expect(comments.filter((comment) => comment.inReplyToId === null).length).toBe(2);
    const legacyComment = comments.find((comment) => comment.inReplyToId === null && comment.body.includes('legacy()'));
    expect(comments.filter((comment) => comment.inReplyToId === legacyComment?.id).map((reply) => reply.body)).toEqual([`Fixed in \`${head}\`.`]);
    const checkRun = await repo.host.readCheckRun(repo.fullName, ended.checkRunId ?? 0);
    expect(checkRun?.output?.title).toBe('0 new, 1 persisting, 1 fixed');
  });
});

describe('an answer longer than an event’s 2,000 characters is read whole: every finding it names is reported', () => {
  test('15 findings with long messages: all 15 in the run detail, 15 comments', async () => {
    const calls = Array.from({ length: 15 }, (_, i) => `step_${i + 1}();`);
    const directives = calls.map((call, i) => `@finding many.js "${call}" low Step ${i + 1} ${'is slow and should be batched with the others; '.repeat(4)}`);
    repo.git('checkout', '--quiet', '-b', 'feature/many', 'origin/main');
    repo.commitAndPush({ 'many.js': `${calls.join('\n')}\n`, '.ars/review.md': `${directives.join('\n')}\n` }, 'Add many steps');
    const many = await repo.openPullRequest('feature/many', 'Add many steps');
    const ended = await untilAttemptEnded(system(), c, (await firstReview(system(), c, many.number)).id);
    expect([ended.status, ended.error]).toEqual(['completed', null]);
    const findings = await findingsOf(ended);
    expect(findings.map((finding) => finding.line).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(calls.map((_, i) => i + 1));
    expect(await repo.host.listReviewComments(repo.ref, many.number)).toHaveLength(15);
  });
});

describe('an answer without a readable findings block concludes nothing: no finding new or fixed, the check run neutral, the attempt failed', () => {
  test('a pull request whose review instructions name no finding: the stand-in answers without a block', async () => {
    repo.git('checkout', '--quiet', '-b', 'feature/quiet', 'origin/main');
    repo.commitAndPush({ 'notes.md': 'Nothing to see.\n' }, 'Add notes');
    const quiet = await repo.openPullRequest('feature/quiet', 'Add notes');
    const review = await firstReview(system(), c, quiet.number);
    const ended = await untilAttemptEnded(system(), c, review.id);
    expect(ended.status).toBe('failed');
    expect(ended.error).toBe("The review's answer held no readable findings: the message has no ```ars-findings block");
    const checkRun = await repo.host.readCheckRun(repo.fullName, ended.checkRunId ?? 0);
    expect(checkRun).toMatchObject({ status: 'completed', conclusion: 'neutral', output: { title: "The review's findings could not be read" } });
    expect(await repo.host.listReviewComments(repo.ref, quiet.number)).toEqual([]);
    expect(await findingsOf(ended)).toEqual([]);
  });
});

describe('an attempt whose queueing was cut short (a crash between the attempt and its automation run) ends failed and frees its head', () => {
  test('a queued attempt without an automation run, older than five minutes, is failed by the report loop', async () => {
    const mongo = await connectMongo({
      url: system().mongoUrl,
      dbName: 'ars_pr-review',
      logger: createLogger({ service: 'test', level: 'silent' }),
      appName: 'test',
    });
    const id = `interrupted-${Date.now()}`;
    try {
      const long = new Date(Date.now() - 10 * 60_000);
      await mongo.db.collection('review_attempts').insertOne({
        ...{ _id: id as never, userId: c.userId, repoId: c.repoId, installationId: c.installationId, provider: 'local', repoFullName: repo.fullName },
        ...{ hostInstallation: repo.ref.installation, prNumber: pr.number, headSha: 'f'.repeat(40), headRef: 'gone', trigger: 'rerun', status: 'queued' },
        ...{ deferred: false, released: true, automationId: first.automationId, automationRunId: null, versionId: null, checkRunId: null, runEnded: null },
        ...{ reportDueAt: null, reportTries: 0, error: null, findings: [], refused: [], createdAt: long, updatedAt: long, endedAt: null },
      });
    } finally {
      await mongo.close();
    }
    const ended = await untilAttemptEnded(system(), c, id, 30_000);
    expect([ended.status, ended.error]).toEqual(['failed', 'The review was never started: its queueing was interrupted; rerun it']);
  });
});

describe('POST /pr-reviews/rerun refuses in the contract’s order: 400, then 404, then 409', () => {
  test.each([
    ['a body that is not JSON', undefined, '{"repoId": '],
    ['an empty repoId', { repoId: '', prNumber: 1 }, undefined],
    ['a missing repoId', { prNumber: 1 }, undefined],
    ['a prNumber of 0', { repoId: 'r', prNumber: 0 }, undefined],
    ['a fractional prNumber', { repoId: 'r', prNumber: 1.5 }, undefined],
    ['a prNumber given as a string', { repoId: 'r', prNumber: '3' }, undefined],
  ])('400 BAD_REQUEST for %s', async (_what, body, raw) => {
    const answer = await rerun(body, raw);
    expect([answer.status, answer.body.ok ? null : answer.body.error.code]).toEqual([400, 'BAD_REQUEST']);
  });

  test('404 for an unknown repository, another user’s, a pull request it does not have, and one with no review check run', async () => {
    const other = await automationClient(system().baseUrl);
    const unreviewedHead = 'feature/unreviewed';
    repo.git('checkout', '--quiet', '-b', unreviewedHead);
    repo.commitAndPush({ 'other.js': 'export const other = 1;\n' }, 'Add other.js');
    const unreviewed = await repo.openPullRequest(unreviewedHead, 'Add other.js');
    const cases: [unknown, string][] = [
      [{ repoId: 'no-such-repo', prNumber: pr.number }, 'Repository not found'],
      [{ repoId: other.repoId, prNumber: pr.number }, 'Repository not found'],
      [{ repoId: c.repoId, prNumber: 9999 }, `Pull request #9999 not found in ${repo.fullName}`],
      [{ repoId: c.repoId, prNumber: unreviewed.number }, `Pull request #${unreviewed.number} has no review check run on its head commit`],
    ];
    for (const [body, message] of cases) {
      const answer = await rerun(body);
      expect([answer.status, answer.body]).toEqual([404, { ok: false, error: { code: 'NOT_FOUND', message } }]);
    }
    // A review check run that no attempt of ours made (its external_id names none): not linked, 409.
    await repo.host.createCheckRun(repo.ref, { name: 'ARS review', headSha: unreviewed.headSha, externalId: 'made-elsewhere', status: 'queued' });
    const unlinked = await rerun({ repoId: c.repoId, prNumber: unreviewed.number });
    expect([unlinked.status, unlinked.body]).toEqual([
      409,
      { ok: false, error: { code: 'CONFLICT', message: `The latest review check run of pull request #${unreviewed.number} is not linked to a service run` } },
    ]);
  });

  test('409 CONFLICT for a closed pull request', async () => {
    await repo.host.closePullRequest(repo.fullName, pr.number);
    const answer = await rerun({ repoId: c.repoId, prNumber: pr.number });
    expect([answer.status, answer.body]).toEqual([409, { ok: false, error: { code: 'CONFLICT', message: `Pull request #${pr.number} is closed` } }]);
    // Nothing was queued: the attempts are the ones made above.
    expect((await attemptOf(system(), c, first.id)).status).toBe('completed');
  });
});
