import { createCatalogClient } from '@ars/catalog/client';
import { environmentOf } from '@ars/config';
import { createRunsClient } from '@ars/runs/client';
import { runService, type RunningService, type ServiceConfig, type ServiceContext, type ServiceDefinition } from '@ars/service';
import { gatewayConfiguration, gitHubConnectionSettingsOf, gitHubSignInSettingsOf, oidcSettingsOf, type GatewayConfigSchema } from './config.js';
import { PUBLIC_PREFIX } from './domain/routeTable.js';
import type { Gateway } from './deps.js';
import { GITHUB_WEBHOOK_PATH, githubWebhookRoutes } from './http/githubWebhooks.js';
import { publicRoutes } from './http/publicRoutes.js';
import { sessionRoutes } from './http/sessionRoutes.js';
import { createPeerClients, peerReadinessChecks } from './peers.js';
import { sessionIndexes, browserSessionStore } from './store/browserSessions.js';
import { tokenIndexes, personalAccessTokenStore } from './store/personalAccessTokens.js';
import { CLI_LOGIN_CODES, DEV_SIGN_IN_CODES, GITHUB_CONNECT_ATTEMPTS, oneTimeCodeIndexes, oneTimeCodeStore, SIGN_IN_ATTEMPTS } from './store/oneTimeCodes.js';
import { CLI_LOGIN_PATH, cliLoginRoutes } from './http/cliLogin.js';
import { devSignInRoutes } from './http/devSignIn.js';
import type { CliLoginGrant } from './domain/cliLogin.js';
import type { DevSignInGrant } from './domain/devSignIn.js';
import { callbackPathOf, type SignInAttempt } from './domain/signIn.js';
import { gitHubSignIn } from './signIn/gitHubSignIn.js';
import type { SignInMethod } from './signIn/signInMethod.js';
import { openIdConnect } from './signIn/openIdConnect.js';
import { gitHubConnectionRoutes, type GitHubConnectAttempt } from './settings/gitHubConnectionRoutes.js';
import { settingsRoutes } from './settings/settingsRoutes.js';
import { signInRoutes } from './signIn/signInRoutes.js';
import { userIndexes, userStore } from './store/users.js';
import { createRedisRateLimiter } from './store/rateLimiter.js';
import { PatCache } from './auth/patCache.js';
import { PAT_CACHE_TTL_MS, REVOCATION_EPOCH_KEY, REVOCATION_MARK_TTL_MS, revocationMarkKey } from './domain/limits.js';
import { createRunSignalSubscriber } from '@ars/run-signals';
import { oauthGrantStore, oauthRecordIndexes } from './store/oauthRecords.js';
import { adminRoutes, DISABLE_USER_PATH } from './http/disableUser.js';
import { createAuthorizationServer } from './auth/authorizationServer.js';
import { isOAuthPath, oauthRoutes } from './oauth/oauthRoutes.js';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** How long a start waits for Redis before serving without it. */
const LIMITER_START_WAIT_MS = 3_000;

/** The configured ways to sign in, in the chooser's order; each answered at its own callback path. */
function signInMethodsOf(config: ServiceConfig<GatewayConfigSchema>, publicOrigin: string): SignInMethod[] {
  const oidc = oidcSettingsOf(config);
  const github = gitHubSignInSettingsOf(config);
  return [
    ...(oidc ? [openIdConnect(oidc, `${publicOrigin}${callbackPathOf('oidc')}`)] : []),
    ...(github ? [gitHubSignIn(github, `${publicOrigin}${callbackPathOf('github')}`)] : []),
  ];
}

/** PATs kept at most (about 200 bytes each). */
const PAT_CACHE_MAX_ENTRIES = 10_000;

/** The composition step: stores, the rate limiter and one client per peer, each closed on shutdown. */
async function composeGateway(ctx: ServiceContext<GatewayConfigSchema>): Promise<Gateway> {
  const { config } = ctx;
  if (!ctx.mongo) throw new Error('the gateway needs MongoDB');
  const limiter = createRedisRateLimiter(config.REDIS_URL, config.RATE_LIMIT_TIMEOUT_MS);
  ctx.onShutdown(() => limiter.close(), 'redis');
  // The limiter queues nothing while it connects (a request never waits on Redis): without this the
  // first requests after a start would find no connection yet (503, or a refused token not counted).
  // Redis down at start is no reason not to start: those requests answer 503 until it is back.
  await limiter.connected(LIMITER_START_WAIT_MS).catch((error: unknown) => ctx.logger.warn({ err: error }, 'rate-limit backend not reachable at start'));
  // Event streams wait on announcements that a run changed (the same Redis), polling only as a safety net.
  const runSignals = createRunSignalSubscriber(config.REDIS_URL, ctx.logger, { connectionName: 'ars-gateway-run-signals' });
  ctx.onShutdown(() => runSignals.close(), 'run signals');
  const peers = createPeerClients(ctx);
  const publicOrigin = new URL(config.PUBLIC_BASE_URL ?? `http://127.0.0.1:${config.PORT}`).origin;
  const oauth = await createAuthorizationServer({ config, publicOrigin, db: ctx.mongo.db, logger: ctx.logger });
  const oauthCallback = oauth.provider.callback() as (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  return {
    config,
    logger: ctx.logger,
    peers,
    catalog: createCatalogClient(peers.catalog),
    runs: createRunsClient(peers.runs),
    limiter,
    runSignals,
    users: userStore(ctx.mongo.db),
    browserSessions: browserSessionStore(ctx.mongo.db),
    personalAccessTokens: personalAccessTokenStore(ctx.mongo.db, {
      markRevoked: (tokenIds) => limiter.mark(tokenIds.map(revocationMarkKey), REVOCATION_EPOCH_KEY, REVOCATION_MARK_TTL_MS),
    }),
    patCache: new PatCache({ ttlMs: PAT_CACHE_TTL_MS, maxEntries: PAT_CACHE_MAX_ENTRIES }),
    cliLoginCodes: oneTimeCodeStore<CliLoginGrant>(ctx.mongo.db, CLI_LOGIN_CODES),
    devSignInCodes: oneTimeCodeStore<DevSignInGrant>(ctx.mongo.db, DEV_SIGN_IN_CODES),
    oauthGrants: oauthGrantStore(ctx.mongo.db),
    signInAttempts: oneTimeCodeStore<SignInAttempt>(ctx.mongo.db, SIGN_IN_ATTEMPTS),
    gitHubConnects: oneTimeCodeStore<GitHubConnectAttempt>(ctx.mongo.db, GITHUB_CONNECT_ATTEMPTS),
    gitHubConnection: gitHubConnectionSettingsOf(config),
    signInMethods: signInMethodsOf(config, publicOrigin),
    publicOrigin,
    production: environmentOf(config) === 'production',
    oauth,
    oauthCallback,
  };
}

export type GatewayRuntime = ServiceDefinition<GatewayConfigSchema>['runtime'];

/** The gateway service (main.ts runs it; tests run it in-process with `runtime`). */
export function startGateway(runtime?: GatewayRuntime): Promise<RunningService<GatewayConfigSchema, Gateway>> {
  return runService({
    ...gatewayConfiguration,
    indexes: [
      userIndexes,
      sessionIndexes,
      tokenIndexes,
      oneTimeCodeIndexes(CLI_LOGIN_CODES),
      oneTimeCodeIndexes(DEV_SIGN_IN_CODES),
      oneTimeCodeIndexes(SIGN_IN_ATTEMPTS),
      oneTimeCodeIndexes(GITHUB_CONNECT_ATTEMPTS),
      oauthRecordIndexes,
    ],
    // Public routes parse their body after authentication (http/jsonBody.ts); the MCP transport reads
    // its own (malformed JSON there is a JSON-RPC -32700, not a REST 400).
    // GitHub deliveries are handed on as the raw bytes their signature covers. The authorization
    // server (oidc-provider, and the consent form) and the CLI login form read their own bodies.
    skipBodyParsing: (ctx) =>
      ctx.path === PUBLIC_PREFIX ||
      ctx.path.startsWith(`${PUBLIC_PREFIX}/`) ||
      ctx.path === GITHUB_WEBHOOK_PATH ||
      ctx.path === CLI_LOGIN_PATH ||
      ctx.path.startsWith('/auth/') ||
      ctx.path === DISABLE_USER_PATH ||
      ctx.path.startsWith('/settings') ||
      isOAuthPath(ctx.path),
    compose: composeGateway,
    readiness: (_ctx, gateway) => ({ redis: () => gateway.limiter.ping(), ...peerReadinessChecks(gateway.peers) }),
    routes: (_ctx, gateway) => [
      publicRoutes(gateway),
      sessionRoutes(gateway),
      cliLoginRoutes(gateway),
      devSignInRoutes(gateway),
      signInRoutes(gateway),
      settingsRoutes(gateway),
      gitHubConnectionRoutes(gateway),
      adminRoutes(gateway),
      githubWebhookRoutes(gateway),
      oauthRoutes(gateway),
    ],
    ...(runtime ? { runtime } : {}),
  });
}
