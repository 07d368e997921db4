// PR reviews on the whole stack: a user's repository on the local source host with a working clone
// (commits pushed with the git CLI), pull requests opened on the host, first reviews asked of
// pr-review as a pull request event would, and waiting on an attempt.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalSourceHost, type PullRequest, type RepositoryRef } from '@ars/source-host';
import { workingClone } from './workingClone.js';
import { fetchAnswer, waitFor } from '@ars/testenv';
import type { AutomationClient } from './automations.js';
import type { SystemView } from '@ars/testenv';

export interface ReviewedRepo {
  host: LocalSourceHost;
  ref: RepositoryRef;
  fullName: string;
  /** Runs git in the working clone (argument vector, no shell). */
  git(...args: string[]): string;
  /** Writes the files, commits them on the current branch and pushes it; the new commit. */
  commitAndPush(files: Record<string, string>, message: string): string;
  openPullRequest(head: string, title: string): Promise<PullRequest>;
}

/** The user's first repository on the stack's local source host, cloned into a temporary directory. */
export async function reviewedRepo(system: SystemView, fullName: string): Promise<ReviewedRepo> {
  const host = new LocalSourceHost(system.sourceHostDir);
  const [account] = fullName.split('/');
  const ref: RepositoryRef = { installation: { account: account ?? '', externalId: null }, fullName };
  const repository = (await host.listRepositories(ref.installation)).find((candidate) => candidate.fullName === fullName);
  if (!repository) throw new Error(`${fullName} is not on the local source host`);
  const clone = workingClone(repository.cloneUrl, join(mkdtempSync(join(tmpdir(), 'ars-review-work-')), 'clone'));
  return {
    host,
    ref,
    fullName,
    ...clone,
    openPullRequest: (head, title) => host.openPullRequest(fullName, { head, base: repository.defaultBranch ?? 'main', title }),
  };
}

export interface AttemptView {
  id: string;
  status: string;
  deferred: boolean;
  headSha: string;
  automationId: string;
  automationRunId: string | null;
  checkRunId: number | null;
  error: string | null;
}

const internal = (system: SystemView) => ({ 'x-internal-token': system.internalToken, 'x-caller-service': 'system-tests' });

/** A first review of the pull request's head, as its opening (or a push) asks pr-review for one. */
export async function firstReview(system: SystemView, c: AutomationClient, prNumber: number): Promise<AttemptView> {
  const answer = await fetchAnswer<{ attempt: AttemptView }>(
    `${system.stack.services['pr-review'].url}/internal/users/${encodeURIComponent(c.userId)}/pr-reviews/reviews`,
    { method: 'POST', headers: internal(system), json: { repoId: c.repoId, prNumber } },
  );
  if (answer.status !== 201) throw new Error(`the first review answered ${answer.status} ${answer.text}`);
  return answer.data.attempt;
}

export async function attemptOf(system: SystemView, c: AutomationClient, attemptId: string): Promise<AttemptView> {
  const answer = await fetchAnswer<{ attempt: AttemptView }>(
    `${system.stack.services['pr-review'].url}/internal/users/${encodeURIComponent(c.userId)}/pr-reviews/attempts/${attemptId}`,
    { headers: internal(system) },
  );
  return answer.data.attempt;
}

/** Waits until the attempt has ended (its report on the host, or its failure). */
export async function untilAttemptEnded(system: SystemView, c: AutomationClient, attemptId: string, timeoutMs = 120_000): Promise<AttemptView> {
  return waitFor(
    `review attempt ${attemptId} to end`,
    async () => {
      const attempt = await attemptOf(system, c, attemptId);
      return attempt.status === 'queued' || attempt.status === 'running' ? undefined : attempt;
    },
    { timeoutMs, intervalMs: 500 },
  );
}
