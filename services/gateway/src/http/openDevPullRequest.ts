import { ok, type RouterMiddleware } from '@ars/http-app';
import type { Gateway } from '../deps.js';
import { requestBody } from './requestBody.js';
import { sessionPrincipalOf } from '../auth/sessionAuth.js';

/**
 * POST /api/dev/pull-requests (session; only outside production) `{repoId, head, base?, title?}` →
 * 201 `{pullRequest, attempt}`: a pull request on the local source host from a branch of the user's
 * repository, with its first review queued (pr-review's `POST /internal/dev/users/:userId/pr-reviews/pull-requests`),
 * as a GitHub delivery would ask for one. What `npm run admin -- open-pull-request` calls. pr-review
 * checks the body; its refusals pass through.
 */
export function openDevPullRequest(gateway: Gateway): RouterMiddleware {
  return async (ctx) => {
    const { userId } = sessionPrincipalOf(ctx.state);
    const opened = await gateway.peers['pr-review'].post<unknown>(
      `/internal/dev/users/${encodeURIComponent(userId)}/pr-reviews/pull-requests`,
      requestBody(ctx) ?? {},
      {
        timeoutMs: 30_000,
      },
    );
    ok(ctx, opened, 201);
  };
}
