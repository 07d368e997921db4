// OAuth access tokens on /mcp are checked on every request, like PATs: revoked (RFC 7009), expired
// or issued for another audience is 401 -32001 at once; refresh tokens rotate; tokens are stored
// only as hashes; an OAuth token is no key to the REST surface; the consent form refuses a foreign
// Origin.
import { createHash } from 'node:crypto';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { createLogger } from '@ars/logger';
import { connectMongo, type Mongo } from '@ars/mongo';
import { tenant, type Account } from '../support/accounts.js';
import { CookieJar, obtainOAuthTokens } from '../support/oauthBrowser.js';
import { sharedSystem } from '@ars/testenv';

const system = sharedSystem();
let account: Account;
let mongo: Mongo;
beforeAll(async () => {
  account = (await tenant(system().baseUrl)).account;
  mongo = await connectMongo({ url: system().mongoUrl, dbName: 'ars_gateway', logger: createLogger({ service: 'test', level: 'silent' }), appName: 'test' });
}, 60_000);
afterAll(async () => {
  await mongo?.close();
});

const records = () => mongo.db.collection<{ _id: string; payload: Record<string, unknown>; expiresAt?: Date }>('oauth_records');
const recordId = (model: string, token: string) => `${model}:${createHash('sha256').update(token, 'utf8').digest('base64url')}`;

async function ping(token: string): Promise<{ status: number; code: number | undefined; challenge: string | null }> {
  const answer = await fetch(`${system().baseUrl}/api/v1/svc/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  const json = (await answer.json()) as { error?: { code: number } };
  return { status: answer.status, code: json.error?.code, challenge: answer.headers.get('www-authenticate') };
}

async function tokenRequest(form: Record<string, string>): Promise<{ status: number; json: OAuthTokens & { error?: string } }> {
  const answer = await fetch(`${system().baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: answer.status, json: (await answer.json()) as OAuthTokens & { error?: string } };
}

const unauthorized = { status: 401, code: -32001 };

describe('an OAuth access token is checked on every request: revoked, expired or for another audience is 401 -32001 at once', () => {
  test('revoked through the RFC 7009 endpoint by the public client with its client_id: the next request is 401', async () => {
    const { tokens, clientId } = await obtainOAuthTokens(system().baseUrl, account.sessionCookie);
    expect(await ping(tokens.access_token)).toMatchObject({ status: 200 });
    const revoked = await fetch(`${system().baseUrl}/oauth/token/revocation`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.access_token, client_id: clientId }).toString(),
    });
    expect(revoked.status).toBe(200);
    const after = await ping(tokens.access_token);
    expect(after).toMatchObject(unauthorized);
    expect(after.challenge).toContain('resource_metadata=');
  });

  test('expired: the next request is 401', async () => {
    const { tokens } = await obtainOAuthTokens(system().baseUrl, account.sessionCookie);
    const past = Math.floor(Date.now() / 1000) - 60;
    const updated = await records().updateOne(
      { _id: recordId('AccessToken', tokens.access_token) },
      { $set: { 'payload.exp': past, expiresAt: new Date(past * 1000) } },
    );
    expect(updated.matchedCount).toBe(1);
    expect(await ping(tokens.access_token)).toMatchObject(unauthorized);
  });

  test('issued for another resource (audience): 401', async () => {
    const { tokens } = await obtainOAuthTokens(system().baseUrl, account.sessionCookie);
    const updated = await records().updateOne(
      { _id: recordId('AccessToken', tokens.access_token) },
      { $set: { 'payload.aud': 'https://elsewhere.example/mcp' } },
    );
    expect(updated.matchedCount).toBe(1);
    expect(await ping(tokens.access_token)).toMatchObject(unauthorized);
  });

  test('an OAuth access token is not accepted on the REST surface, which takes PATs only', async () => {
    const { tokens } = await obtainOAuthTokens(system().baseUrl, account.sessionCookie);
    const answer = await fetch(`${system().baseUrl}/api/v1/svc/repos`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(answer.status).toBe(401);
  });
});

describe('refresh tokens rotate: a refresh gives a new pair, and the old refresh token no longer works', () => {
  test('refresh, use the new access token, then the spent refresh token is invalid_grant', async () => {
    const { tokens, clientId } = await obtainOAuthTokens(system().baseUrl, account.sessionCookie);
    const refreshed = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token as string, client_id: clientId });
    expect(refreshed.status).toBe(200);
    expect(refreshed.json.refresh_token).toBeTruthy();
    expect(refreshed.json.refresh_token).not.toBe(tokens.refresh_token);
    expect(await ping(refreshed.json.access_token)).toMatchObject({ status: 200 });
    const again = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token as string, client_id: clientId });
    expect(again.status).toBe(400);
    expect(again.json.error).toBe('invalid_grant');
  });
});

describe('tokens are stored as hashes: the database holds no working access or refresh token', () => {
  test('no OAuth record contains the plaintext of a token handed out', async () => {
    const { tokens } = await obtainOAuthTokens(system().baseUrl, account.sessionCookie);
    const stored = JSON.stringify(await records().find({}).toArray());
    expect(stored).not.toContain(tokens.access_token);
    expect(stored).not.toContain(tokens.refresh_token as string);
    expect(await records().countDocuments({ _id: recordId('AccessToken', tokens.access_token) })).toBe(1);
  });
});

describe('a registered client is not kept forever: it expires when unused, never before its refresh token', () => {
  test('after an authorization the client record expires no earlier than the refresh token issued to it', async () => {
    const { tokens, clientId } = await obtainOAuthTokens(system().baseUrl, account.sessionCookie);
    const client = await records().findOne({ _id: recordId('Client', clientId) });
    const refresh = await records().findOne({ _id: recordId('RefreshToken', tokens.refresh_token as string) });
    expect(client?.expiresAt).toBeInstanceOf(Date);
    expect(refresh?.expiresAt).toBeInstanceOf(Date);
    expect(client?.expiresAt?.getTime()).toBeGreaterThanOrEqual(refresh?.expiresAt?.getTime() ?? Infinity);
  });
});

describe('the consent form: a POST from another origin is refused and grants nothing', () => {
  test('a cross-site POST to the consent page is 403', async () => {
    const answer = await fetch(`${system().baseUrl}/oauth/consent/some-interaction`, {
      method: 'POST',
      headers: { cookie: new CookieJar(account.sessionCookie).header(), origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'decision=allow',
    });
    expect(answer.status).toBe(403);
  });
});
