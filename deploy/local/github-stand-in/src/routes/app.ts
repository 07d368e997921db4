// GitHub's `/app` routes, called as the App itself (its RS256 JWT): an installation's access token
// and the installation.
import { randomBytes } from 'node:crypto';
import { checkAppJwt } from '../appJwt.js';
import { githubError, notFound, type Answer } from '../httpAnswer.js';
import type { Route, RouteContext } from '../route.js';

/** The App authenticates as itself with an RS256 JWT (`iss` its id), as the `/app/…` routes require. */
function requireAppJwt({ req, appId, publicKey, state }: RouteContext): void {
  const jwt = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
  if (!jwt) throw githubError(401, 'A JSON web token could not be decoded');
  const check = checkAppJwt(jwt, appId, publicKey);
  state.jwts.push(check);
  if (!check.valid) throw githubError(401, `'Issuer' claim ('iss') must be an Integer or the JWT is invalid: ${check.reason ?? ''}`);
}

/** POST /app/installations/{id}/access_tokens: a token for an hour (not for a suspended installation). */
async function mintAccessToken(params: string[], context: RouteContext): Promise<Answer> {
  requireAppJwt(context);
  const installationId = Number(params[1]);
  if (!context.state.installations.has(installationId)) throw notFound();
  if (context.appInstallations.list().find((installation) => installation.id === installationId)?.suspendedAt)
    throw githubError(403, 'This installation has been suspended');
  const token = `ghs_${randomBytes(18).toString('hex')}`;
  context.state.minted.push({ installationId, token });
  return {
    status: 201,
    body: {
      token,
      expires_at: new Date(Date.now() + 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      permissions: { checks: 'write', contents: 'write', metadata: 'read', pull_requests: 'write' },
      repository_selection: 'selected',
    },
  };
}

/** GET /app/installations/{id}: the installation as GitHub has it now. */
async function getInstallation(params: string[], context: RouteContext): Promise<Answer> {
  requireAppJwt(context);
  const installation = context.appInstallations.get(Number(params[1]));
  if (!installation) throw notFound();
  return { status: 200, body: installation };
}

export const appRoutes: Route[] = [
  ['POST', /^\/app\/installations\/(\d+)\/access_tokens$/, mintAccessToken],
  ['GET', /^\/app\/installations\/(\d+)$/, getInstallation],
];
