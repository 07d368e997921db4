// An attempt's report, once its automation run has ended: the findings read from the review agent's
// last message, fingerprinted and classified against the pull request's previous attempt, then said
// on the source host (one review with inline comments, edits, "Fixed in" replies, the check run
// completed) and handed to the automations engine for the run detail. Every step is recomputed from
// what the host holds, so a report interrupted and made again never comments twice.
import type { AutomationRunDetail } from '@ars/automations-engine/client';
import type { ReviewFinding } from '@ars/contract';
import { sanitizeText } from '@ars/sanitize';
import { commentableLines, type ReviewComment } from '@ars/source-host';
import { annotationBatches, checkConclusion, checkRunSummary, countsLine } from '../domain/checkRun.js';
import { classifyFindings, type Classification, type StoredFinding } from '../domain/classifyFindings.js';
import { parseFindings } from '../domain/findingsFormat.js';
import { fingerprintFindings } from '../domain/fingerprint.js';
import { markerOf, planFixedReplies, planReviewComments, type HostComment } from '../domain/reviewComments.js';
import type { AttemptDoc } from '../store/collections.js';
import type { PrReviewDeps } from './deps.js';
import type { RepoOnHost } from './sourceHosts.js';

/** The most files of a pull request whose text is read for fingerprints (the others use the agent's anchor). */
const MAX_FILES_READ = 100;

/** Makes the report of an attempt whose automation run ended; throws what failed (the report loop decides when to try again). */
export async function reportAttempt(deps: PrReviewDeps, attempt: AttemptDoc): Promise<void> {
  const ended = attempt.runEnded;
  if (!ended || !attempt.automationRunId) return;
  const access = await deps.catalog.repoAccess(attempt.userId, attempt.repoId);
  const onHostRepo = deps.hosts(access);
  if (ended.status !== 'success') {
    await reportUnfinished(deps, onHostRepo, attempt, ended);
    return;
  }
  const detail = await deps.automations.getRun(attempt.userId, attempt.automationId, attempt.automationRunId);
  const parsed = parseFindings(reviewMessage(detail));
  if (!parsed.readable) {
    await reportUnreadable(deps, onHostRepo, attempt, parsed.problems);
    return;
  }
  const previous = (await deps.attempts.lastReported(attempt.repoId, attempt.prNumber, attempt._id))?.findings ?? [];
  const fileLines = await readFiles(onHostRepo, attempt.headSha, new Set(parsed.findings.map((finding) => finding.path)));
  const classification = classifyFindings(
    previous,
    fingerprintFindings(parsed.findings, (path) => fileLines.get(path) ?? null),
  );

  const refused = await postComments(deps, onHostRepo, attempt, classification);
  await completeCheckRun(onHostRepo, attempt, classification, refused, parsed.problems);
  await deps.automations.setReviewFindings(attempt.userId, attempt.automationId, attempt.automationRunId, reviewFindings(classification));
  await deps.attempts.update(attempt._id, {
    status: 'completed',
    findings: classification.findings,
    refused,
    reportDueAt: null,
    error: null,
    endedAt: new Date(),
  });
  deps.logger.info(
    {
      attempt_id: attempt._id,
      automation_run_id: attempt.automationRunId,
      new: classification.new.length,
      persisting: classification.persisting.length,
      fixed: classification.fixed.length,
    },
    'review reported',
  );
}

/** The last message of the review's agent node that ended last (the template's `review`; a customised graph may have others). */
function reviewMessage(detail: AutomationRunDetail | null): string | null {
  const agents = (detail?.nodeRuns ?? []).filter((node) => node.type === 'agent' && node.endedAt !== null);
  agents.sort((a, b) => (a.endedAt ?? '').localeCompare(b.endedAt ?? ''));
  const output = agents.at(-1)?.output;
  if (output === null || typeof output !== 'object' || Array.isArray(output)) return null;
  const message = (output as Record<string, unknown>).lastMessage;
  return typeof message === 'string' ? message : null;
}

/** The reviewed files' lines at the head (fingerprints anchor on the code, not on line numbers). */
async function readFiles(onHostRepo: RepoOnHost, headSha: string, paths: Set<string>): Promise<Map<string, string[]>> {
  const lines = new Map<string, string[]>();
  for (const path of [...paths].slice(0, MAX_FILES_READ)) {
    const text = await onHostRepo.host.fileContent(onHostRepo.ref, headSha, path);
    if (text !== null) lines.set(path, text.split('\n'));
  }
  return lines;
}

const hostComment = (comment: ReviewComment): HostComment => ({
  id: String(comment.id),
  path: comment.path,
  line: comment.line,
  body: comment.body,
  inReplyToId: comment.inReplyToId === null ? null : String(comment.inReplyToId),
  author: comment.author,
});

/**
 * New findings get one review with a comment each on a line the diff shows; findings commented before
 * are edited, never commented again; fixed ones get a reply in their thread. Returns the open
 * findings no comment says (their line is outside the diff): the check run's summary lists them.
 */
async function postComments(deps: PrReviewDeps, { host, ref }: RepoOnHost, attempt: AttemptDoc, classification: Classification): Promise<string[]> {
  const existing = (await host.listReviewComments(ref, attempt.prNumber)).map(hostComment);
  const plan = planReviewComments({ classification, existing, appLogin: deps.appLogin });
  const files = await host.listPullRequestFiles(ref, attempt.prNumber);
  const commentable = new Map(files.map((file) => [file.path, commentableLines(file.patch)]));
  const onDiff = plan.post.filter((comment) => commentable.get(comment.path)?.has(comment.line) === true);
  const commented = new Set(existing.filter((c) => c.author.toLowerCase() === deps.appLogin.toLowerCase()).map((c) => markerOf(c.body)));
  const refused = [...classification.new, ...classification.persisting]
    .filter((finding) => !commented.has(finding.fingerprint) && !onDiff.some((comment) => comment.fingerprint === finding.fingerprint))
    .map((finding) => finding.fingerprint);

  if (onDiff.length > 0) {
    await host.createReview(ref, attempt.prNumber, {
      commitSha: attempt.headSha,
      body: `Review of \`${attempt.headSha.slice(0, 12)}\`: ${countsLine(classification)}.`,
      comments: onDiff.map((comment) => ({ path: comment.path, line: comment.line, body: comment.body })),
    });
  }
  for (const edit of plan.edit) await host.updateReviewComment(ref, Number(edit.commentId), edit.body);
  const replies = planFixedReplies({ fixed: classification.fixed, existing, appLogin: deps.appLogin, headSha: attempt.headSha });
  for (const reply of replies.reply) await host.replyToReviewComment(ref, attempt.prNumber, Number(reply.inReplyToId), reply.body);
  return refused;
}

async function completeCheckRun(
  { host, ref }: RepoOnHost,
  attempt: AttemptDoc,
  classification: Classification,
  refused: string[],
  problems: string[],
): Promise<void> {
  if (attempt.checkRunId === null) return;
  const summary = checkRunSummary({ classification, refused, headSha: attempt.headSha });
  const text = problems.length > 0 ? `The review's answer had problems:\n${problems.map((problem) => `- ${problem}`).join('\n')}` : undefined;
  await host.updateCheckRun(ref, attempt.checkRunId, {
    status: 'completed',
    conclusion: checkConclusion(classification),
    output: {
      title: countsLine(classification),
      summary,
      ...(text ? { text } : {}),
      annotations: annotationBatches(classification)
        .flat()
        .map((annotation) => ({
          path: annotation.path,
          startLine: annotation.startLine,
          endLine: annotation.endLine,
          level: annotation.level,
          title: annotation.title,
          message: annotation.message,
        })),
    },
  });
}

/** What the run detail shows: every finding of the attempt with its state (a fixed one is nowhere now). */
export function reviewFindings(classification: Classification): ReviewFinding[] {
  return classification.findings.map((finding: StoredFinding) => ({
    fingerprint: finding.fingerprint,
    state: finding.state,
    severity: finding.severity,
    path: finding.path,
    line: finding.state === 'fixed' ? null : finding.line,
    title: finding.title ?? null,
    message: finding.message,
  }));
}

/**
 * The review ended but its answer held no readable findings block: nothing is concluded from it — no
 * finding is new or fixed, nothing is commented — the check run is completed `neutral` saying why,
 * and the attempt fails (the pull request's findings stay as the last report left them).
 */
async function reportUnreadable(deps: PrReviewDeps, { host, ref }: RepoOnHost, attempt: AttemptDoc, problems: string[]): Promise<void> {
  const why = sanitizeText(problems.join('; '), { cap: 2_000, knownSecrets: deps.secrets });
  if (attempt.checkRunId !== null) {
    await host.updateCheckRun(ref, attempt.checkRunId, {
      status: 'completed',
      conclusion: 'neutral',
      output: {
        title: "The review's findings could not be read",
        summary: `The review agent finished, but its answer held no readable \`\`\`ars-findings block (${why}). No finding was reported, fixed or commented; rerun the review.`,
      },
    });
  }
  await deps.attempts.update(attempt._id, {
    status: 'failed',
    error: `The review's answer held no readable findings: ${why}`,
    reportDueAt: null,
    endedAt: new Date(),
  });
}

/** The review run failed or was cancelled: the check run says so; the pull request's findings stay as the last report left them. */
async function reportUnfinished(deps: PrReviewDeps, { host, ref }: RepoOnHost, attempt: AttemptDoc, ended: NonNullable<AttemptDoc['runEnded']>): Promise<void> {
  const error = ended.error ? sanitizeText(ended.error, { cap: 2_000, knownSecrets: deps.secrets }) : null;
  if (attempt.checkRunId !== null) {
    await host.updateCheckRun(ref, attempt.checkRunId, {
      status: 'completed',
      conclusion: ended.status === 'cancelled' ? 'cancelled' : 'failure',
      output: {
        title: ended.status === 'cancelled' ? 'The review was cancelled' : 'The review failed',
        summary: error ?? (ended.status === 'cancelled' ? 'The review run was cancelled.' : 'The review run failed.'),
      },
    });
  }
  await deps.attempts.update(attempt._id, { status: ended.status === 'cancelled' ? 'cancelled' : 'failed', error, reportDueAt: null, endedAt: new Date() });
}
