import { callbackUrl, CLIENT_NAME_MAX_LENGTH, isLoopbackRedirectUri, parseCliLoginRequest, verifierMatches } from './cliLogin.js';

const VALID: Record<string, string> = {
  redirect_uri: 'http://127.0.0.1:45678/callback',
  state: 'a-state-of-the-cli',
  code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  code_challenge_method: 'S256',
  scopes: 'read,write',
  client_name: 'ars on laptop',
};
const parse = (changes: Record<string, string | undefined> = {}) => {
  const params = { ...VALID, ...changes };
  return parseCliLoginRequest((name) => params[name]);
};

describe('the CLI login redirects only to the CLI’s loopback listener', () => {
  test.each(['http://127.0.0.1:1/callback', 'http://127.0.0.1:65535/callback', 'http://localhost:8123/callback'])('%s is accepted', (uri) => {
    expect(isLoopbackRedirectUri(uri)).toBe(true);
  });
  test.each([
    'https://127.0.0.1:8123/callback',
    'http://127.0.0.1/callback',
    'http://127.0.0.1:0/callback',
    'http://127.0.0.1:65536/callback',
    'http://127.0.0.1:8123/callback/',
    'http://127.0.0.1:8123/callback?x=1',
    'http://127.0.0.1:8123/other',
    'http://127.0.0.2:8123/callback',
    'http://[::1]:8123/callback',
    'http://127.0.0.1.evil.example:8123/callback',
    'http://user@127.0.0.1:8123/callback',
    'http://evil.example/#http://127.0.0.1:8123/callback',
  ])('%s is refused', (uri) => {
    expect(isLoopbackRedirectUri(uri)).toBe(false);
  });
});

describe('every parameter of the consent request is checked', () => {
  test('a valid request parses; scopes default to read and write; the client name defaults to ars', () => {
    expect(parse()).toEqual({
      ok: true,
      request: {
        redirectUri: VALID.redirect_uri,
        state: VALID.state,
        codeChallenge: VALID.code_challenge,
        scopes: ['read', 'write'],
        clientName: 'ars on laptop',
      },
    });
    expect(parse({ scopes: undefined, client_name: undefined })).toMatchObject({ ok: true, request: { scopes: ['read', 'write'], clientName: 'ars' } });
    expect(parse({ scopes: 'read' })).toMatchObject({ ok: true, request: { scopes: ['read'] } });
  });
  test.each([
    [{ redirect_uri: 'https://evil.example/callback' }, 'redirect_uri'],
    [{ state: 'short' }, 'state'],
    [{ state: 'has space in it' }, 'state'],
    [{ code_challenge_method: 'plain' }, 'code_challenge_method'],
    [{ code_challenge: 'too-short' }, 'code_challenge'],
    [{ scopes: 'read,admin' }, 'scopes'],
    [{ scopes: ',' }, 'scopes'],
  ])('%j is refused, naming %s', (changes, field) => {
    const parsed = parse(changes);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem.startsWith(field)).toBe(true);
  });
  test('the client name loses its control characters and is capped', () => {
    expect(parse({ client_name: 'a\u0000b\n\tc' })).toMatchObject({ request: { clientName: 'a b c' } });
    const long = parse({ client_name: 'é'.repeat(500) });
    expect(long.ok && [...long.request.clientName]).toHaveLength(CLIENT_NAME_MAX_LENGTH);
  });
});

describe('PKCE S256 and the callback', () => {
  test('RFC 7636 Appendix B: the example verifier matches its challenge; any other does not', () => {
    expect(verifierMatches('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk', VALID.code_challenge ?? '')).toBe(true);
    expect(verifierMatches('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXl', VALID.code_challenge ?? '')).toBe(false);
    expect(verifierMatches('short', VALID.code_challenge ?? '')).toBe(false);
  });
  test('the callback carries the code or the error, and the state, on the validated URI', () => {
    const request = { redirectUri: 'http://127.0.0.1:4000/callback', state: 'the-state-1' };
    expect(callbackUrl(request, { code: 'c0de' })).toBe('http://127.0.0.1:4000/callback?code=c0de&state=the-state-1');
    expect(callbackUrl(request, { error: 'access_denied' })).toBe('http://127.0.0.1:4000/callback?error=access_denied&state=the-state-1');
  });
});
