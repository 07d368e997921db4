import { generateSessionId, hashSessionId, isWellFormedSessionId, originProblem, sessionCookieHeader, sessionIdFromCookieHeader } from './sessions.js';

const ORIGIN = 'http://127.0.0.1:8080';

describe('mutating session routes: Origin must be the public origin', () => {
  test.each([
    [{ origin: ORIGIN }, undefined],
    [{}, undefined],
    [{ secFetchSite: 'same-origin' }, undefined],
    [{ secFetchSite: 'none' }, undefined],
  ])('%j is accepted', (headers, expected) => {
    expect(originProblem(headers, ORIGIN)).toBe(expected);
  });
  test.each([
    [{ origin: 'http://127.0.0.1:8081' }],
    [{ origin: 'http://localhost:8080' }],
    [{ origin: 'null' }],
    [{ origin: `${ORIGIN}.evil.example` }],
    [{ secFetchSite: 'cross-site' }],
    [{ secFetchSite: 'same-site' }],
    [{ origin: 'https://evil.example', secFetchSite: 'same-origin' }],
  ])('%j is refused', (headers) => {
    expect(originProblem(headers, ORIGIN)).toEqual(expect.any(String));
  });
});

describe('the session cookie: HttpOnly, SameSite=Lax, Secure over TLS, a random id stored hashed', () => {
  test('attributes', () => {
    expect(sessionCookieHeader('v', { maxAgeSeconds: 604800, secure: false })).toBe('ars_session=v; Path=/; Max-Age=604800; HttpOnly; SameSite=Lax');
    expect(sessionCookieHeader('v', { maxAgeSeconds: 10, secure: true })).toContain('; Secure');
    expect(sessionCookieHeader('', { maxAgeSeconds: 0, secure: false })).toContain('Max-Age=0');
  });
  test('ids are 256-bit random, well formed, and hashed with SHA-256', () => {
    const id = generateSessionId();
    expect(isWellFormedSessionId(id)).toBe(true);
    expect(id).not.toBe(generateSessionId());
    expect(hashSessionId(id)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashSessionId(id)).not.toContain(id);
  });
  test('the id is read from a Cookie header among others', () => {
    expect(sessionIdFromCookieHeader('a=1; ars_session=abc; b=2')).toBe('abc');
    expect(sessionIdFromCookieHeader('ars_session_x=1')).toBeUndefined();
    expect(sessionIdFromCookieHeader(undefined)).toBeUndefined();
  });
});
