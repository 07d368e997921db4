import { ok, pathParam, requestBody, validateBody, type Router } from '@ars/http-app';
import { checkGitHubUser, connectionOf, recheckGitHubUser } from '../sourceHost/gitHubUserReach.js';
import type { GitHubUserTokens } from '../sourceHost/gitHubUserApi.js';
import type { CatalogDeps } from './deps.js';

const parseTokens = validateBody<GitHubUserTokens>({
  type: 'object',
  required: ['accessToken'],
  additionalProperties: false,
  properties: {
    accessToken: { type: 'string', minLength: 1, maxLength: 1000 },
    refreshToken: { type: ['string', 'null'], minLength: 1, maxLength: 1000, default: null },
    refreshTokenExpiresIn: { type: ['integer', 'null'], minimum: 1, default: null },
  },
});

/**
 * A user's GitHub connection (the gateway's sign-in with GitHub, Connect GitHub, Refresh and the
 * settings page); the tokens are secrets: never logged, never answered.
 * - `PUT  /internal/users/:userId/github` `{accessToken, refreshToken?, refreshTokenExpiresIn?}` → `{github}`:
 *   what GitHub lists for that user token now becomes exactly the user's GitHub reach, and the link is kept
 *   (the refresh token sealed). GitHub refusing the token → 409; GitHub failing → 503.
 * - `POST /internal/users/:userId/github/recheck` → `{github}` rechecked with the kept refresh token, or
 *   `{github: null}` when there is no link or GitHub refused the refresh token (the link and its reach are gone).
 * - `GET  /internal/users/:userId/github` → `{github}` as known, or `{github: null}`.
 */
export function gitHubConnection(router: Router, deps: CatalogDeps): void {
  router.put('/users/:userId/github', async (ctx) => {
    const tokens = parseTokens(requestBody(ctx));
    const github = await checkGitHubUser(deps, pathParam(ctx, 'userId'), tokens);
    deps.logger.info({ user_id: pathParam(ctx, 'userId'), installations: github.installations.length }, 'github reach checked');
    ok(ctx, { github });
  });
  router.post('/users/:userId/github/recheck', async (ctx) => {
    ok(ctx, { github: await recheckGitHubUser(deps, pathParam(ctx, 'userId')) });
  });
  router.get('/users/:userId/github', async (ctx) => {
    const link = await deps.githubLinks.find(pathParam(ctx, 'userId'));
    ok(ctx, { github: link ? await connectionOf(deps, link) : null });
  });
}
