import { ok, validateBody, type RouterMiddleware } from '@ars/http-app';
import { displayPrefixOf, generateToken, hashToken } from '../domain/personalAccessTokens.js';
import { DEFAULT_SCOPES, SCOPES, type Scope } from '../domain/scopes.js';
import type { Gateway } from '../deps.js';
import { requestBody } from './requestBody.js';
import { sessionPrincipalOf } from '../auth/sessionAuth.js';

/** The longest lifetime a token may be given (`expiresInDays`). */
export const MAX_EXPIRES_IN_DAYS = 3650;
/**
 * The lifetime of a token created without `expiresInDays`: the contract types `expiresAt` a string,
 * so every token expires (docs/decisions.md); a longer life is asked for explicitly.
 */
export const DEFAULT_EXPIRES_IN_DAYS = 90;

interface CreatePersonalAccessTokenBody {
  name: string;
  scopes?: Scope[];
  expiresInDays?: number;
}

const parseCreatePersonalAccessToken = validateBody<CreatePersonalAccessTokenBody>({
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' },
    scopes: { type: 'array', minItems: 1, uniqueItems: true, items: { enum: [...SCOPES] } },
    expiresInDays: { type: 'integer', minimum: 1, maximum: MAX_EXPIRES_IN_DAYS },
  },
});

/** What a newly minted token answers: the plaintext, here only. */
export interface MintedPersonalAccessToken {
  id: string;
  token: string;
  prefix: string;
  scopes: Scope[];
  expiresAt: string;
}

/**
 * A new PAT for the user: the plaintext answered once, the store keeps its SHA-256 and the first
 * 12 characters. `expiresAt` is always a date: `expiresInDays` (default DEFAULT_EXPIRES_IN_DAYS) from now.
 */
export async function mintPersonalAccessToken(
  gateway: Gateway,
  request: { userId: string; name: string; scopes: readonly Scope[]; expiresInDays?: number },
): Promise<MintedPersonalAccessToken> {
  const token = generateToken();
  const expiresAt = new Date(Date.now() + (request.expiresInDays ?? DEFAULT_EXPIRES_IN_DAYS) * 86_400_000);
  const record = await gateway.personalAccessTokens.create({
    userId: request.userId,
    name: request.name,
    tokenHash: hashToken(token),
    prefix: displayPrefixOf(token),
    scopes: [...request.scopes].sort(),
    expiresAt,
  });
  return { id: record._id, token, prefix: record.prefix, scopes: record.scopes, expiresAt: expiresAt.toISOString() };
}

/** POST /api/settings/api-keys → 201 `{id, token, prefix, scopes, expiresAt}` (mintPersonalAccessToken). */
export function createPersonalAccessToken(gateway: Gateway): RouterMiddleware {
  return async (ctx) => {
    const { userId } = sessionPrincipalOf(ctx.state);
    const body = parseCreatePersonalAccessToken(requestBody(ctx));
    const minted = await mintPersonalAccessToken(gateway, {
      userId,
      name: body.name.trim(),
      scopes: body.scopes ?? DEFAULT_SCOPES,
      expiresInDays: body.expiresInDays,
    });
    ok(ctx, minted, 201);
  };
}
