import { ok, validateBody, type RouterMiddleware } from '@ars/http-app';
import { DEV_SIGN_IN_TTL_SECONDS, devSignInUrl } from '../domain/devSignIn.js';
import { generateOneTimeCode, hashOneTimeCode } from '../domain/oneTimeCodes.js';
import type { Gateway } from '../deps.js';
import { requestBody } from './requestBody.js';
import { startSession } from '../auth/sessionAuth.js';

const parseDevAccount = validateBody<{ repoCount?: number; pullRequest?: boolean }>({
  type: 'object',
  properties: { repoCount: { type: 'integer', minimum: 2, maximum: 20 }, pullRequest: { type: 'boolean' } },
});

/**
 * Setting up a development account writes git repositories and pushes a sample change (child
 * processes in catalog and pr-review): seconds on a busy machine, never a hot path, so its calls are
 * not held to the peers' usual 5 s deadline.
 */
const DEV_SETUP_TIMEOUT_MS = 60_000;

/** The sample pull request of a development account, with its first review's check run linked (pr-review's answer). */
interface DevPullRequest {
  pullRequest: { repoId: string; number: number; url: string; headRef: string; headSha: string };
  attempt: { id: string; checkRunId: number | null; automationId: string; automationRunId: string | null };
}

/**
 * POST /api/dev/accounts (only outside production): a new user, a session for it, and a new
 * installation with real repositories on the local source host (the catalog's
 * `POST /internal/dev/installations`), and two example tool servers (mcp-registry's
 * `POST /internal/dev/users/:userId/mcp-servers/examples`). 201 `{userId, sessionCookie, signInUrl,
 * installationId, repos}`: `signInUrl` signs a browser in as the account, once, within 10 minutes.
 * With `pullRequest: true` (what `npm run admin -- dev-account` asks for) also `pullRequest`: an open
 * pull request on the first repository whose first review's check run exists and is linked to its
 * attempt (pr-review's `POST /internal/dev/users/:userId/pr-reviews/sample`), so
 * `POST /pr-reviews/rerun` works at once. Off by default: that review is a real agent run.
 */
export function createDevAccount(gateway: Gateway): RouterMiddleware {
  return async (ctx) => {
    const body = parseDevAccount(requestBody(ctx));
    const user = await gateway.users.create('dev');
    const created = await gateway.catalog.createDevInstallation({ userId: user._id, repoCount: body.repoCount ?? 2 }, { timeoutMs: DEV_SETUP_TIMEOUT_MS });
    // Two example tool servers (mcp-registry): a command shape with an env secret, a URL shape with an Authorization header.
    await gateway.peers['mcp-registry'].post(
      `/internal/dev/users/${encodeURIComponent(user._id)}/mcp-servers/examples`,
      {},
      { timeoutMs: DEV_SETUP_TIMEOUT_MS },
    );
    const firstRepo = created.repos[0];
    const sample =
      body.pullRequest === true && firstRepo
        ? await gateway.peers['pr-review'].post<DevPullRequest>(
            `/internal/dev/users/${encodeURIComponent(user._id)}/pr-reviews/sample`,
            {
              repoId: firstRepo.id,
            },
            { timeoutMs: DEV_SETUP_TIMEOUT_MS },
          )
        : null;
    const sessionCookie = await startSession(gateway, ctx, user._id);
    // The browser's way in: a one-time link to open, rather than a cookie to paste (domain/devSignIn.ts).
    const signInCode = generateOneTimeCode();
    await gateway.devSignInCodes.create(hashOneTimeCode(signInCode), { userId: user._id }, DEV_SIGN_IN_TTL_SECONDS);
    ok(
      ctx,
      {
        userId: user._id,
        sessionCookie,
        signInUrl: devSignInUrl(gateway.publicOrigin, signInCode),
        installationId: created.installation.id,
        repos: created.repos.map((repo) => ({ id: repo.id, full_name: repo.full_name, default_branch: repo.default_branch })),
        ...(sample
          ? {
              pullRequest: {
                ...sample.pullRequest,
                checkRunId: sample.attempt.checkRunId,
                attemptId: sample.attempt.id,
                automationId: sample.attempt.automationId,
                automationRunId: sample.attempt.automationRunId,
              },
            }
          : {}),
      },
      201,
    );
  };
}
