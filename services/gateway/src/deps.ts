import type { CatalogClient } from '@ars/catalog/client';
import type { HttpClient } from '@ars/http-client';
import type { Logger } from '@ars/logger';
import type { RunsClient } from '@ars/runs/client';
import type { ServiceConfig } from '@ars/service';
import type { GatewayConfigSchema, GitHubConnectionSettings } from './config.js';
import type { Peer } from './peers.js';
import type { RateLimiter } from './store/rateLimiter.js';
import type { RunSignalSubscriber } from '@ars/run-signals';
import type { BrowserSessionStore } from './store/browserSessions.js';
import type { PersonalAccessTokenStore } from './store/personalAccessTokens.js';
import type { PatCache } from './auth/patCache.js';
import type { CliLoginGrant } from './domain/cliLogin.js';
import type { DevSignInGrant } from './domain/devSignIn.js';
import type { OneTimeCodeStore } from './store/oneTimeCodes.js';
import type { UserStore } from './store/users.js';
import type { AuthorizationServer } from './auth/authorizationServer.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SignInAttempt } from './domain/signIn.js';
import type { GitHubConnectAttempt } from './settings/gitHubConnectionRoutes.js';
import type { SignInMethod } from './signIn/signInMethod.js';
import type { OAuthGrantStore } from './store/oauthRecords.js';

/** Everything a route needs, built once per process (the composition root, `gateway.ts`, builds it). */
export interface Gateway {
  config: ServiceConfig<GatewayConfigSchema>;
  logger: Logger;
  /** Every peer's internal API, for readiness and the generic forwarding of public routes. */
  peers: Record<Peer, HttpClient>;
  /** The typed clients of the internal routes the gateway calls by name. */
  catalog: CatalogClient;
  runs: RunsClient;
  limiter: RateLimiter;
  /** Announcements that a run changed: what an event stream waits on between reads (`@ars/run-signals`). */
  runSignals: RunSignalSubscriber;
  users: UserStore;
  browserSessions: BrowserSessionStore;
  personalAccessTokens: PersonalAccessTokenStore;
  /** The PATs this gateway looked up lately (auth/patCache.ts): the public routes' reads of MongoDB saved. */
  patCache: PatCache;
  /** The one-time codes of `ars login` (http/cliLogin.ts). */
  cliLoginCodes: OneTimeCodeStore<CliLoginGrant>;
  /** The OAuth grants of users to MCP clients, as a whole (offboarding). */
  oauthGrants: OAuthGrantStore;
  /** Sign-ins under way: what each browser's answer is checked against (signIn/signInRoutes.ts). */
  signInAttempts: OneTimeCodeStore<SignInAttempt>;
  /** Connect GitHub under way (settings/gitHubConnectionRoutes.ts), under the SHA-256 of each step's state. */
  gitHubConnects: OneTimeCodeStore<GitHubConnectAttempt>;
  /** Connect GitHub's App (slug and client), when configured. */
  gitHubConnection: GitHubConnectionSettings | undefined;
  /** The configured ways to sign in, in the chooser's order: OpenID Connect (OIDC_*), GitHub (GITHUB_CLIENT_*); none in development. */
  signInMethods: readonly SignInMethod[];
  /** Development sign-in links (only outside production): the user a link signs the browser in as. */
  devSignInCodes: OneTimeCodeStore<DevSignInGrant>;
  /** `PUBLIC_BASE_URL`'s origin, e.g. `http://127.0.0.1:8080`. */
  publicOrigin: string;
  production: boolean;
  /** The OAuth 2.1 authorization server of `/mcp` (auth/authorizationServer.ts). */
  oauth: AuthorizationServer;
  /** Its Koa app's request handler, made once. */
  oauthCallback: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
}
