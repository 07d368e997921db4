import { AppError } from '@ars/errors';
import { isWellFormedToken } from '../domain/personalAccessTokens.js';
import { MCP_SCOPES } from '../domain/oauthClients.js';
import type { Scope } from '../domain/scopes.js';
import { resolveBearer } from './authenticateToken.js';
import type { Gateway } from '../deps.js';
import type { Principal } from './state.js';

/** `oidc-provider`'s opaque tokens are base64url; anything else is not looked up. */
const OPAQUE_TOKEN = /^[A-Za-z0-9_-]{20,256}$/;

/**
 * Who is calling `/mcp`: a PAT exactly as on the REST surface, or an OAuth access token issued by
 * the gateway's authorization server. The OAuth token is looked up in the database on every request
 * (it is opaque), so a revocation or an expiry applies to the very next request, as for PATs; a
 * token issued for another resource (audience) is refused. Its rate-limit key is its grant: every
 * token refreshed from one consent shares one budget, as the tokens of one PAT would.
 */
export async function resolveMcpBearer(gateway: Gateway, authorization: string | undefined): Promise<Principal> {
  const token = /^Bearer +(\S+) *$/i.exec(authorization ?? '')?.[1];
  if (!token || token.startsWith('tok_') || isWellFormedToken(token) || !OPAQUE_TOKEN.test(token)) return resolveBearer(gateway, authorization);
  let found;
  try {
    found = await gateway.oauth.provider.AccessToken.find(token);
  } catch (error) {
    gateway.logger.error({ err: error }, 'OAuth token lookup failed');
    throw AppError.unavailable('Token store unavailable; retry shortly');
  }
  if (!found || !found.accountId) throw AppError.unauthorized('Invalid, expired or revoked OAuth access token');
  const audiences = Array.isArray(found.aud) ? found.aud : [found.aud];
  if (!audiences.includes(gateway.oauth.mcpResource)) throw AppError.unauthorized('OAuth access token was issued for another resource');
  const granted = new Set((found.scope ?? '').split(' '));
  const scopes: Scope[] = MCP_SCOPES.filter((scope) => granted.has(scope));
  return { userId: found.accountId, tokenId: `oauth:${found.grantId ?? found.jti}`, scopes };
}
