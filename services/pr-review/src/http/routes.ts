import { Router, requireInternalCaller } from '@ars/http-app';
import type { PrReviewDeps } from '../review/deps.js';
import { devPullRequests } from './devPullRequests.js';
import { githubWebhook } from './githubWebhook.js';
import { rerunReview } from './rerunReview.js';
import { startReview } from './startReview.js';

/** pr-review's internal API: everything under `/internal`, behind the internal token. */
export function prReviewRoutes(deps: PrReviewDeps, internalToken: string): Router {
  const router = new Router({ prefix: '/internal' });
  router.use(requireInternalCaller(internalToken));
  rerunReview(router, deps);
  startReview(router, deps);
  devPullRequests(router, deps);
  githubWebhook(router, deps);
  return router;
}
