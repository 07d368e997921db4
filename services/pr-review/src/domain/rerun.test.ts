import { AppError } from '@ars/errors';
import { decideRerun, rerunAnswer, type AttemptFacts, type RerunFacts } from './rerun.js';

const previous: AttemptFacts = { id: 'attempt-1', versionId: 'v1', status: 'completed' };
const facts = (overrides: Partial<RerunFacts> = {}): RerunFacts => ({
  prNumber: 7,
  repo: { id: 'repo-1', fullName: 'acme/app' },
  hasAccessToken: true,
  pullRequest: { state: 'open', headSha: 'a'.repeat(40) },
  latestCheckRun: { id: 11, externalId: 'attempt-1' },
  linkedAttempt: previous,
  liveAttemptOnHead: null,
  ...overrides,
});

function refusal(input: RerunFacts): [string, number, string] {
  try {
    decideRerun(input);
  } catch (error) {
    if (error instanceof AppError) return [error.code, error.status, error.message];
    throw error;
  }
  throw new Error('not refused');
}

describe('404 for an unknown or foreign repository, a pull request it does not have, or no review check run on it', () => {
  test.each([
    ['no repository', { repo: null }, 'Repository not found'],
    ['no pull request', { pullRequest: null }, 'Pull request #7 not found in acme/app'],
    ['no review check run', { latestCheckRun: null }, 'Pull request #7 has no review check run on its head commit'],
  ] as const)('%s', (_what, overrides, message) => {
    expect(refusal(facts(overrides))).toEqual(['NOT_FOUND', 404, message]);
  });
});

describe('409 CONFLICT: no source-host access token, the latest check run not linked to a service run, the pull request closed', () => {
  test.each([
    ['no access token', { hasAccessToken: false }, 'No source-host access token for acme/app'],
    ['not linked', { linkedAttempt: null }, 'The latest review check run of pull request #7 is not linked to a service run'],
    ['closed', { pullRequest: { state: 'closed', headSha: 'a'.repeat(40) } }, 'Pull request #7 is closed'],
  ] as const)('%s', (_what, overrides, message) => {
    expect(refusal(facts(overrides as Partial<RerunFacts>))).toEqual(['CONFLICT', 409, message]);
  });
});

describe('the refusals come in the contract’s order: 404 before 409', () => {
  test('a foreign repository without a token is 404; a missing pull request on a closed-looking request is 404', () => {
    expect(refusal(facts({ repo: null, hasAccessToken: false }))[1]).toBe(404);
    expect(refusal(facts({ pullRequest: null, linkedAttempt: null }))[1]).toBe(404);
    expect(refusal(facts({ latestCheckRun: null, hasAccessToken: false }))[1]).toBe(404);
  });
});

describe('a rerun while an attempt on the same head is queued or running is deferred', () => {
  test.each([
    ['queued', true],
    ['running', true],
    ['completed', false],
    ['failed', false],
  ] as const)('a %s attempt on the head: deferred %s', (status, deferred) => {
    const decision = decideRerun(facts({ liveAttemptOnHead: { id: 'attempt-2', versionId: 'v1', status } }));
    expect(decision).toEqual({ queue: true, deferred, previousAttemptId: 'attempt-1', blockingAttemptId: deferred ? 'attempt-2' : null });
  });
});

describe('the answer fills every field of RerunPrReviewData', () => {
  const attempt = { attemptId: 'attempt-3', automationRunId: 'run-3', automationRunStatus: 'running', versionId: 'v1' };

  test('started: the automation run is jobRunId and runtimeRunId, the attempt workflowRunId', () => {
    const decision = decideRerun(facts());
    expect(rerunAnswer({ repoId: 'repo-1', prNumber: 7, decision, previous, attempt })).toEqual({
      queued: true,
      jobRunId: 'run-3',
      prNumber: 7,
      repoId: 'repo-1',
      started: true,
      deferred: false,
      reason: null,
      status: 'running',
      runtimeProvider: 'automations-engine',
      runtimeRunId: 'run-3',
      workflowRunId: 'attempt-3',
      versionFallbackUsed: false,
    });
  });

  test('deferred: queued, not started, the reason names the attempt it waits for; its automation run already exists (pending)', () => {
    const decision = decideRerun(facts({ liveAttemptOnHead: { id: 'attempt-2', versionId: 'v1', status: 'running' } }));
    const answer = rerunAnswer({ repoId: 'repo-1', prNumber: 7, decision, previous, attempt: { ...attempt, automationRunStatus: 'pending' } });
    expect(answer).toMatchObject({ queued: true, started: false, deferred: true, jobRunId: 'run-3', status: 'pending' });
    expect(answer.reason).toBe('queued behind attempt attempt-2 on the same head commit');
  });

  test('versionFallbackUsed when the version that made the last review is no longer the one that runs', () => {
    const decision = decideRerun(facts());
    expect(rerunAnswer({ repoId: 'repo-1', prNumber: 7, decision, previous, attempt: { ...attempt, versionId: 'v2' } }).versionFallbackUsed).toBe(true);
  });
});
