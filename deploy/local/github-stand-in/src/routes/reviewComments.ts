// Review comments: `GET /repos/{o}/{r}/pulls/{n}/comments`, a reply
// (`POST …/pulls/{n}/comments` with `in_reply_to`) and an edit of the App's own
// (`PATCH …/pulls/comments/{id}`).
import { githubError, invalid, notFound, type Answer } from '../httpAnswer.js';
import { commentJson, iso } from '../json.js';
import type { StandInReviewComment } from '../records.js';
import { page, pullRequestOf, reachableRepository, readBody, type Route, type RouteContext } from '../route.js';

const missingField = (field: string) => invalid('Validation Failed', [{ resource: 'PullRequestReviewComment', code: 'missing_field', field }]);

/** The pull request's comments, oldest first (`direction=desc`: newest first). */
async function listReviewComments(params: string[], context: RouteContext): Promise<Answer> {
  const hosted = reachableRepository(params, context);
  const pr = pullRequestOf(hosted, Number(params[3]));
  const comments = hosted.comments.filter((c) => c.pull_number === pr.number).sort((a, b) => a.id - b.id);
  if (context.url.searchParams.get('direction') === 'desc') comments.reverse();
  const { items, headers } = page(context, comments);
  return { status: 200, body: items.map((c) => commentJson(context.state.baseUrl, hosted, c)), headers };
}

/** A reply in a comment's thread (a reply to a reply joins the thread of its first comment). */
async function replyToReviewComment(params: string[], context: RouteContext): Promise<Answer> {
  const hosted = reachableRepository(params, context);
  const pr = pullRequestOf(hosted, Number(params[3]));
  const body = await readBody(context.req);
  if (typeof body.body !== 'string') throw missingField('body');
  if (body.in_reply_to === undefined) throw missingField('in_reply_to');
  const parent = hosted.comments.find((c) => c.id === Number(body.in_reply_to) && c.pull_number === pr.number);
  if (!parent) throw notFound();
  const at = iso();
  const reply: StandInReviewComment = {
    ...parent,
    id: context.state.nextId(),
    pull_request_review_id: null,
    body: body.body,
    in_reply_to_id: parent.in_reply_to_id ?? parent.id,
    user: context.state.botLogin,
    created_at: at,
    updated_at: at,
  };
  hosted.comments.push(reply);
  return { status: 201, body: commentJson(context.state.baseUrl, hosted, reply) };
}

/** An edit of a comment: only of the App's own (403 for another's). */
async function editReviewComment(params: string[], context: RouteContext): Promise<Answer> {
  const hosted = reachableRepository(params, context);
  const comment = hosted.comments.find((c) => c.id === Number(params[3]));
  if (!comment) throw notFound();
  const body = await readBody(context.req);
  if (typeof body.body !== 'string') throw missingField('body');
  if (comment.user !== context.state.botLogin) throw githubError(403, 'Must have admin rights to Repository.');
  comment.body = body.body;
  comment.updated_at = iso();
  return { status: 200, body: commentJson(context.state.baseUrl, hosted, comment) };
}

export const reviewCommentRoutes: Route[] = [
  ['GET', /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)\/comments$/, listReviewComments],
  ['POST', /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)\/comments$/, replyToReviewComment],
  ['PATCH', /^\/repos\/([^/]+)\/([^/]+)\/pulls\/comments\/(\d+)$/, editReviewComment],
];
