// Reviews: `POST /repos/{o}/{r}/pulls/{n}/reviews`, its comments on lines the diff shows (GitHub's
// rule, diffLines.ts), all saved or, on a line it cannot resolve, none.
import { rightSideLines } from '../diffLines.js';
import { invalid, type Answer } from '../httpAnswer.js';
import { iso, user } from '../json.js';
import type { StandInPullRequest, StandInReview } from '../records.js';
import { pullRequestOf, reachableRepository, readBody, type Route, type RouteContext } from '../route.js';
import { fullNameOf } from '../state.js';

type ReviewCommentDraft = { path?: unknown; line?: unknown; side?: unknown; body?: unknown };

/** The review's comments, each on a file of the pull request and a right-side line its patch shows (else 422). */
function reviewCommentDrafts(pr: StandInPullRequest, body: Record<string, unknown>): ReviewCommentDraft[] {
  const drafts = Array.isArray(body.comments) ? (body.comments as ReviewCommentDraft[]) : [];
  for (const c of drafts) {
    const file = pr.files.find((f) => f.filename === c.path);
    if (typeof c.body !== 'string' || typeof c.line !== 'number' || !file) throw invalid('Unprocessable Entity', ['Path could not be resolved']);
    if ((c.side ?? 'RIGHT') !== 'RIGHT' || !rightSideLines(file.patch).has(c.line)) throw invalid('Unprocessable Entity', ['Line could not be resolved']);
  }
  return drafts;
}

async function createReview(params: string[], context: RouteContext): Promise<Answer> {
  const hosted = reachableRepository(params, context);
  const pr = pullRequestOf(hosted, Number(params[3]));
  const body = await readBody(context.req);
  const event = typeof body.event === 'string' ? body.event : 'PENDING';
  if (!['APPROVE', 'REQUEST_CHANGES', 'COMMENT', 'PENDING'].includes(event)) throw invalid('Unprocessable Entity', ['event is not a member of the enum']);
  const drafts = reviewCommentDrafts(pr, body);
  const { state } = context;
  const commitId = typeof body.commit_id === 'string' ? body.commit_id : pr.head.sha;
  const review: StandInReview = {
    id: state.nextId(),
    pull_number: pr.number,
    commit_id: commitId,
    body: typeof body.body === 'string' ? body.body : '',
    event,
    state: { APPROVE: 'APPROVED', REQUEST_CHANGES: 'CHANGES_REQUESTED', COMMENT: 'COMMENTED', PENDING: 'PENDING' }[event] ?? 'COMMENTED',
    user: state.botLogin,
  };
  hosted.reviews.push(review);
  for (const c of drafts) {
    const at = iso();
    hosted.comments.push({
      id: state.nextId(),
      pull_number: pr.number,
      pull_request_review_id: review.id,
      commit_id: commitId,
      path: String(c.path),
      line: Number(c.line),
      side: 'RIGHT',
      body: String(c.body),
      in_reply_to_id: null,
      user: state.botLogin,
      created_at: at,
      updated_at: at,
    });
  }
  const fullName = fullNameOf(hosted);
  return {
    status: 200,
    body: {
      id: review.id,
      node_id: `PRR_${review.id}`,
      user: user(review.user),
      body: review.body,
      state: review.state,
      html_url: `https://github.com/${fullName}/pull/${pr.number}#pullrequestreview-${review.id}`,
      pull_request_url: `${state.baseUrl}/repos/${fullName}/pulls/${pr.number}`,
      commit_id: review.commit_id,
      submitted_at: iso(),
    },
  };
}

export const reviewRoutes: Route[] = [['POST', /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)\/reviews$/, createReview]];
