// Offboarding on the whole stack: `npm run admin -- disable-user <id or email>` (the gateway's own
// command, which `kubectl exec` runs in a cluster) ends the user's browser sessions, revokes their
// PATs and deletes their OAuth grants to MCP clients at once: each one refused on the very next
// request. The internal route behind it takes only the internal token.
import { sharedSystem } from '@ars/testenv';
import { bearer, call, createAccount, createToken, dataOf } from '../support/accounts.js';
import { admin } from '../support/admin.js';
import { obtainOAuthTokens } from '../support/oauthBrowser.js';

const system = sharedSystem();

const stackEnv = (): Record<string, string> => ({ ARS_BASE_URL: system().baseUrl, INTERNAL_TOKEN: system().internalToken });

/** A JSON-RPC ping on /mcp with an OAuth access token: its HTTP status. */
async function mcpStatus(accessToken: string): Promise<number> {
  const answer = await fetch(`${system().baseUrl}/api/v1/svc/mcp`, {
    method: 'POST',
    headers: { ...bearer(accessToken), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }),
  });
  await answer.body?.cancel();
  return answer.status;
}

describe('disable-user ends every session, PAT and OAuth grant of the user at once', () => {
  test('by id: the session cookie, the PAT, the OAuth access token and its refresh token are all refused on the next request; other users keep theirs', async () => {
    const account = await createAccount(system().baseUrl);
    const other = await createAccount(system().baseUrl);
    const token = await createToken(system().baseUrl, account);
    const otherToken = await createToken(system().baseUrl, other);
    const { tokens, clientId } = await obtainOAuthTokens(system().baseUrl, account.sessionCookie);
    expect((await call(`${system().baseUrl}/api/session`, { headers: { cookie: account.sessionCookie } })).status).toBe(200);
    expect((await call(`${system().baseUrl}/api/v1/svc/repos`, { headers: bearer(token.token) })).status).toBe(200);
    expect(await mcpStatus(tokens.access_token)).toBe(200);

    const result = await admin(['disable-user', account.userId, '--json'], stackEnv());
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const done = JSON.parse(result.stdout) as {
      user: { id: string; disabledAt: string };
      sessionsEnded: number;
      tokensRevoked: number;
      oauthGrantsRevoked: number;
    };
    expect(done).toMatchObject({ user: { id: account.userId }, tokensRevoked: 1, oauthGrantsRevoked: 1 });
    expect(done.sessionsEnded).toBeGreaterThanOrEqual(1);

    expect((await call(`${system().baseUrl}/api/session`, { headers: { cookie: account.sessionCookie } })).status).toBe(401);
    expect((await call(`${system().baseUrl}/api/v1/svc/repos`, { headers: bearer(token.token) })).status).toBe(401);
    expect(await mcpStatus(tokens.access_token)).toBe(401);
    const refreshed = await fetch(`${system().baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: String(tokens.refresh_token), client_id: clientId }).toString(),
    });
    expect(refreshed.status).toBe(400);
    expect(((await refreshed.json()) as { error: string }).error).toBe('invalid_grant');

    // Nobody else's.
    expect((await call(`${system().baseUrl}/api/session`, { headers: { cookie: other.sessionCookie } })).status).toBe(200);
    expect((await call(`${system().baseUrl}/api/v1/svc/repos`, { headers: bearer(otherToken.token) })).status).toBe(200);

    // Again: nothing left to end, the same user.
    const again = await admin(['disable-user', account.userId, '--json'], stackEnv());
    expect(JSON.parse(again.stdout)).toMatchObject({
      user: { id: account.userId, disabledAt: done.user.disabledAt },
      sessionsEnded: 0,
      tokensRevoked: 0,
      oauthGrantsRevoked: 0,
    });
  });

  test('an unknown user: exit 1, one line saying so; nothing else happens', async () => {
    const result = await admin(['disable-user', 'usr_000000000000000000000000'], stackEnv());
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('disable-user refused: NOT_FOUND: No user usr_000000000000000000000000\n');
  });
});

describe('the internal route takes only the internal token', () => {
  test('POST /internal/admin/users/disable without it, or with a session or a PAT, is 401', async () => {
    const account = await createAccount(system().baseUrl);
    const minted = await createToken(system().baseUrl, account);
    for (const headers of [{}, { cookie: account.sessionCookie }, bearer(minted.token), { 'x-internal-token': 'not-the-token-0123456789' }]) {
      const answer = await call(`${system().baseUrl}/internal/admin/users/disable`, { method: 'POST', headers, json: { user: account.userId } });
      expect(answer.status).toBe(401);
    }
    expect(dataOf(await call<{ userId: string }>(`${system().baseUrl}/api/session`, { headers: { cookie: account.sessionCookie } })).userId).toBe(
      account.userId,
    );
  });
});
