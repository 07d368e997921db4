// A stateful stand-in for the GitHub REST API paths the GitHub App source host calls, answering with
// GitHub's field names and refusals, checking App JWTs like GitHub, with a control plane for tests.
// This file composes it: the state (state.ts), the REST routes (routes/, one file per API area),
// Sign in with GitHub (userAuth.ts), installing the App (appInstallations.ts), faults (faults.ts), the
// control plane (controlPlane.ts) and the HTTP server that answers with them.
import type { KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AppJwtCheck } from './appJwt.js';
import { createAppInstallations, type StandInAccount, type StandInAppSettings, type StandInInstallation } from './appInstallations.js';
import { installationControls, pullRequestControls, readBackControls, userControls } from './controlPlane.js';
import { faultAnswer, Faults, type StandInFault } from './faults.js';
import { HttpAnswer, notFound, type Answer } from './httpAnswer.js';
import { installationHosting } from './installationHosting.js';
import type {
  NewStandInPullRequest,
  StandInCheckRun,
  StandInPullRequest,
  StandInPullRequestFile,
  StandInRepository,
  StandInReview,
  StandInReviewComment,
} from './records.js';
import { tokenInstallation, type Route, type StandInDeps } from './route.js';
import { appRoutes } from './routes/app.js';
import { checkRunRoutes } from './routes/checkRuns.js';
import { contentRoutes } from './routes/contents.js';
import { pullRoutes } from './routes/pulls.js';
import { repositoryRoutes } from './routes/repositories.js';
import { reviewCommentRoutes } from './routes/reviewComments.js';
import { reviewRoutes } from './routes/reviews.js';
import { StandInState } from './state.js';
import { createUserAuth, type StandInOAuthApp, type StandInUser, type UserAuth } from './userAuth.js';
import { deliverWebhook, type StandInWebhook } from './webhookPayloads.js';
import type { WebhookDelivery, WebhookTarget } from './webhooks.js';

export interface GitHubStandInOptions {
  appId: string;
  publicKey: KeyObject;
  /** Repositories by GitHub installation id. */
  installations?: Record<number, StandInRepository[]>;
  /** The App's bot login that writes check runs, reviews and comments; default `agent-run-service[bot]`. */
  botLogin?: string;
  /** The App's OAuth credentials: "Sign in with GitHub" (the web flow on this same server, `/login/oauth/*`). */
  oauthApp?: StandInOAuthApp;
  /** GitHub users who can sign in (the stand-in's sign-in form takes any password). */
  users?: StandInUser[];
  /** The App's slug, Setup URL and webhook: installing it through `/apps/{slug}/installations/new`. */
  app?: StandInAppSettings;
  /** Accounts the App can be installed on, with their repositories (the install page offers them). */
  accounts?: StandInAccount[];
}

export interface GitHubStandIn {
  url: string;
  /** Installation access tokens minted, in order. */
  minted: { installationId: number; token: string }[];
  /** Every App JWT presented, with what the check found. */
  jwts: AppJwtCheck[];
  /** Requests seen, `METHOD path?query`. */
  requests: string[];
  addInstallation(installationId: number, repositories: StandInRepository[]): void;
  /** Opens a pull request in a repository of an installation; answers its number (1, 2, … per repository). */
  openPullRequest(fullName: string, pr: NewStandInPullRequest): number;
  /** A push to the head branch: a new head SHA and, when given, the files the diff now shows. Answers the SHA before. */
  pushHead(fullName: string, number: number, head: { sha: string; files?: StandInPullRequestFile[] }): string;
  closePullRequest(fullName: string, number: number, options?: { merged?: boolean }): void;
  /**
   * The whole tree of a commit, file text by `/`-separated path (directories are implied by the
   * paths), served by `GET …/contents/{path}?ref=`; the commit becomes one the repository knows.
   */
  setCommitFiles(fullName: string, sha: string, files: Record<string, string>): void;
  pullRequest(fullName: string, number: number): StandInPullRequest | undefined;
  checkRuns(fullName: string): StandInCheckRun[];
  reviews(fullName: string, number: number): StandInReview[];
  reviewComments(fullName: string, number: number): StandInReviewComment[];
  /** Adds a comment as someone else (a person replying in a thread). */
  addReviewComment(fullName: string, number: number, comment: { user: string; body: string; inReplyTo?: number; path?: string; line?: number }): number;
  failNext(fault: StandInFault): void;
  /** GitHub's web host too (`/login/oauth/authorize`, `/login/oauth/access_token`): the same server here. */
  webUrl: string;
  addUser(user: StandInUser): void;
  /** User access tokens minted by the web flow (and refreshes), in order. */
  userTokens(): { login: string; token: string }[];
  /** The end of the web flow without a browser: the user authorized the App; their tokens (see UserAuth.authorizeUser). */
  authorizeUser(login: string): { accessToken: string; refreshToken: string; refreshTokenExpiresIn: number };
  revokeUserTokens(login: string): void;
  forgetAuthorization(login: string): void;
  /** Sends a signed webhook with GitHub's payload for the event, built from the stand-in's state. */
  deliverWebhook(target: WebhookTarget, webhook: StandInWebhook): Promise<WebhookDelivery>;
  addAccount(account: StandInAccount): void;
  /** Every installation, made by the install page or given. */
  installations(): StandInInstallation[];
  /** The App's webhook deliveries (installation events and changes made below), in order. */
  appDeliveries(): WebhookDelivery[];
  /** What an account owner does on GitHub; each sends its webhook to the App's (when it has one). */
  uninstall(installationId: number): Promise<WebhookDelivery | undefined>;
  suspendInstallation(installationId: number, suspended: boolean): Promise<WebhookDelivery | undefined>;
  selectRepositories(installationId: number, change: { add?: string[]; remove?: string[] }): Promise<WebhookDelivery | undefined>;
  renameRepository(fullName: string, to: { owner?: string; name?: string }): Promise<WebhookDelivery | undefined>;
  setDefaultBranch(fullName: string, branch: string): Promise<WebhookDelivery | undefined>;
  /** GitHub's "Redeliver": the same delivery (id and body) again. */
  redeliver(deliveryId: string): Promise<WebhookDelivery>;
  close(): Promise<void>;
}

/** GitHub's REST routes the stand-in serves, in the order they are tried; anything else is 404. */
const routes: Route[] = [...appRoutes, ...repositoryRoutes, ...pullRoutes, ...contentRoutes, ...checkRunRoutes, ...reviewRoutes, ...reviewCommentRoutes];

/** What the server answers with: the routes' deps, the faults to inject, Sign in with GitHub. */
interface ServerParts {
  deps: StandInDeps;
  faults: Faults;
  userAuth: UserAuth;
}

/** The answer to a request: an injected fault; else Sign in with GitHub or installing the App (their pages and user routes); else the first route matching. */
async function answer(req: IncomingMessage, url: URL, method: string, { deps, faults, userAuth }: ServerParts): Promise<Answer> {
  const fault = faults.take(method, url.pathname);
  if (fault) return faultAnswer(fault);
  const userAnswer = (await userAuth.handle(req, url)) ?? (await deps.appInstallations.handle(req, url));
  if (userAnswer) return userAnswer;
  for (const [routeMethod, pattern, route] of routes) {
    const groups = pattern.exec(url.pathname);
    if (!groups || routeMethod !== method) continue;
    return route(
      groups.map((part) => decodeURIComponent(part)),
      { ...deps, req, url, installationId: () => tokenInstallation(deps.state, req.headers.authorization ?? '') },
    );
  }
  return notFound();
}

/** Logs the request and writes its answer; a route's refusal (an HttpAnswer thrown) is written like any answer. */
async function handle(req: IncomingMessage, res: ServerResponse, parts: ServerParts): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://stand-in');
  const method = req.method ?? 'GET';
  parts.deps.state.requests.push(`${method} ${url.pathname}${url.search}`);
  const { status, body, headers } = await answer(req, url, method, parts).catch((error: unknown) => {
    if (!(error instanceof HttpAnswer)) throw error;
    return error;
  });
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-github-media-type': 'github.v3; format=json', ...headers });
  res.end(text);
}

/** The server on a free port of 127.0.0.1; a request that fails with any other error is answered 500 with it. */
async function listen(parts: ServerParts): Promise<{ server: Server; baseUrl: string }> {
  const server: Server = createServer((req, res) => {
    handle(req, res, parts).catch((error: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify({ message: String(error), status: '500' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { server, baseUrl: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` };
}

export async function startGitHubStandIn(options: GitHubStandInOptions): Promise<GitHubStandIn> {
  const state = new StandInState(options.botLogin ?? 'agent-run-service[bot]');
  const userAuth = createUserAuth(options.oauthApp, options.users ?? []);
  const appInstallations = createAppInstallations({
    app: options.app,
    appId: options.appId,
    users: userAuth,
    apiUrl: () => state.baseUrl,
    hosting: installationHosting(state),
  });
  const addInstallation = (installationId: number, repositories: StandInRepository[]): void => {
    state.host(installationId, repositories);
    appInstallations.record(installationId, repositories[0]?.owner ?? `account-${installationId}`);
  };
  for (const account of options.accounts ?? []) appInstallations.addAccount(account);
  for (const [id, repositories] of Object.entries(options.installations ?? {})) addInstallation(Number(id), repositories);

  const faults = new Faults();
  const deps: StandInDeps = { state, appId: options.appId, publicKey: options.publicKey, appInstallations };
  const { server, baseUrl } = await listen({ deps, faults, userAuth });
  state.baseUrl = baseUrl;

  return {
    url: baseUrl,
    webUrl: baseUrl,
    minted: state.minted,
    jwts: state.jwts,
    requests: state.requests,
    addInstallation,
    ...pullRequestControls(state),
    ...readBackControls(state),
    ...userControls(userAuth),
    ...installationControls(appInstallations),
    failNext: (fault) => faults.add(fault),
    deliverWebhook: (target, webhook) => deliverWebhook(state, target, webhook),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
