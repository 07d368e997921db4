import { call, createAccount, errorOf, gatewaySuite } from '../testing/index.js';

const suite = gatewaySuite();

describe('POST /api/settings/api-keys creates a token shown once: {id, token, prefix, scopes, expiresAt}', () => {
  test.each([
    [{}, 'name is required'],
    [{ name: '' }, 'name'],
    [{ name: '   ' }, 'name'],
    [{ name: 7 }, 'name must be a string'],
    [{ name: 'x', scopes: [] }, 'scopes'],
    [{ name: 'x', scopes: ['admin'] }, 'scopes'],
    [{ name: 'x', scopes: 'read' }, 'scopes must be an array'],
    [{ name: 'x', expiresInDays: 0 }, 'expiresInDays'],
    [{ name: 'x', expiresInDays: 1.5 }, 'expiresInDays must be an integer'],
    [{ name: 'x', expiresInDays: '3' }, 'expiresInDays must be an integer'],
  ])('%j is 400 BAD_REQUEST naming the field', async (body, field) => {
    const account = await createAccount(suite.gateway.baseUrl);
    const answer = await call(suite.keys, { method: 'POST', headers: { cookie: account.sessionCookie }, json: body });
    expect(answer.status).toBe(400);
    expect(errorOf(answer).code).toBe('BAD_REQUEST');
    expect(errorOf(answer).message).toContain(field);
  });
});
