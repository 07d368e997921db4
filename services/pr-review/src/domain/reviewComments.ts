// What the review says on the pull request: one inline comment per finding, each carrying a hidden
// marker with its fingerprint, so a later attempt finds its own comments again (RESEARCH.md §2).
// Pure builders: the source host adapter does the talking.
import type { FingerprintedFinding } from './fingerprint.js';
import type { Classification, StoredFinding } from './classifyFindings.js';
import { compareFindings } from './classifyFindings.js';

/** A review comment as the source host lists it (ids as strings; `inReplyToId` null for a thread's first comment). */
export interface HostComment {
  id: string;
  path: string | null;
  line: number | null;
  body: string;
  inReplyToId: string | null;
  /** The author's login. */
  author: string;
}

/** A comment to post: on `line` of `path`, or on `startLine`..`line` when the finding spans lines. */
export interface NewComment {
  fingerprint: string;
  path: string;
  line: number;
  startLine: number | null;
  body: string;
}

/** An existing comment of ours whose text is no longer what the finding says. */
export interface CommentEdit {
  commentId: string;
  fingerprint: string;
  body: string;
}

export interface CommentPlan {
  post: NewComment[];
  edit: CommentEdit[];
}

export interface FixedReply {
  inReplyToId: string;
  fingerprint: string;
  body: string;
}

export type FixedReplySkip = 'no-comment' | 'human-reply' | 'already-replied';

export interface FixedReplyPlan {
  reply: FixedReply[];
  /** Fixed findings that get no reply, and why. */
  skipped: { fingerprint: string; reason: FixedReplySkip }[];
}

const MARKER = /<!-- ars:f:([0-9a-f]{16,32}) -->/;

/** The hidden marker a comment carries: `<!-- ars:f:<fingerprint> -->`. */
export function findingMarker(fingerprint: string): string {
  return `<!-- ars:f:${fingerprint} -->`;
}

/** The fingerprint in a comment's marker, null when it has none. */
export function markerOf(body: string): string | null {
  return MARKER.exec(body)?.[1] ?? null;
}

/** `**High**: <title>` then the message, then the marker. */
export function findingCommentBody(finding: Pick<FingerprintedFinding, 'severity' | 'title' | 'message' | 'fingerprint'>): string {
  const severity = `**${finding.severity[0]?.toUpperCase() ?? ''}${finding.severity.slice(1)}**`;
  const head = finding.title ? `${severity}: ${finding.title}` : severity;
  return `${head}\n\n${finding.message}\n\n${findingMarker(finding.fingerprint)}`;
}

const sameLogin = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/** The app's own thread-starting comments by the fingerprint of their marker (the first one of each). */
function ourMarkedComments(existing: readonly HostComment[], appLogin: string): Map<string, HostComment> {
  const byFingerprint = new Map<string, HostComment>();
  for (const comment of existing) {
    if (comment.inReplyToId !== null || !sameLogin(comment.author, appLogin)) continue;
    const fingerprint = markerOf(comment.body);
    if (fingerprint !== null && !byFingerprint.has(fingerprint)) byFingerprint.set(fingerprint, comment);
  }
  return byFingerprint;
}

/**
 * Which comments to post and which to edit:
 * - a new finding whose marker is not on the pull request yet → posted;
 * - a new or persisting finding whose marker is already there (in a comment of the app) → never a
 *   second comment; that comment is edited when its body differs from what the finding says now;
 * - a persisting finding without a comment (its line was refused earlier, or the comment deleted) →
 *   nothing: it is in the check run's summary and annotations.
 * Only the app's own comments (`appLogin`) count: a person quoting a marker changes nothing.
 */
export function planReviewComments(input: {
  classification: Pick<Classification, 'new' | 'persisting'>;
  existing: readonly HostComment[];
  appLogin: string;
}): CommentPlan {
  const ours = ourMarkedComments(input.existing, input.appLogin);
  const plan: CommentPlan = { post: [], edit: [] };
  for (const finding of [...input.classification.new, ...input.classification.persisting].sort(compareFindings)) {
    const body = findingCommentBody(finding);
    const comment = ours.get(finding.fingerprint);
    if (comment) {
      if (comment.body !== body) plan.edit.push({ commentId: comment.id, fingerprint: finding.fingerprint, body });
    } else if (finding.state === 'new') {
      const spans = finding.endLine > finding.line;
      plan.post.push({
        fingerprint: finding.fingerprint,
        path: finding.path,
        line: spans ? finding.endLine : finding.line,
        startLine: spans ? finding.line : null,
        body,
      });
    }
  }
  return plan;
}

/** The reply to a fixed finding's comment: ``Fixed in `<sha>`.`` */
export function fixedReplyBody(sha: string): string {
  return `Fixed in \`${sha}\`.`;
}

const FIXED_REPLY = /^Fixed in `[^`]+`\.$/;

/**
 * Which fixed findings get the reply "Fixed in `<sha>`" (`sha` the reviewed head commit): those
 * whose marked comment of the app exists and whose thread has no human reply — a human being any
 * author other than `appLogin` (compared without case) — and no fixed reply of ours yet.
 */
export function planFixedReplies(input: {
  fixed: readonly StoredFinding[];
  existing: readonly HostComment[];
  appLogin: string;
  headSha: string;
}): FixedReplyPlan {
  const ours = ourMarkedComments(input.existing, input.appLogin);
  const plan: FixedReplyPlan = { reply: [], skipped: [] };
  for (const finding of [...input.fixed].sort(compareFindings)) {
    const comment = ours.get(finding.fingerprint);
    if (!comment) {
      plan.skipped.push({ fingerprint: finding.fingerprint, reason: 'no-comment' });
      continue;
    }
    const replies = input.existing.filter((c) => c.inReplyToId === comment.id);
    if (replies.some((c) => !sameLogin(c.author, input.appLogin))) {
      plan.skipped.push({ fingerprint: finding.fingerprint, reason: 'human-reply' });
    } else if (replies.some((c) => FIXED_REPLY.test(c.body.trim()))) {
      plan.skipped.push({ fingerprint: finding.fingerprint, reason: 'already-replied' });
    } else {
      plan.reply.push({ inReplyToId: comment.id, fingerprint: finding.fingerprint, body: fixedReplyBody(input.headSha) });
    }
  }
  return plan;
}
