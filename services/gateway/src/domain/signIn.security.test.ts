import { DEFAULT_RETURN_TO, emailRefusal, returnToOf } from './signIn.js';

describe('returnTo: a path of this gateway, or the settings page (never a redirect off the gateway)', () => {
  test.each([
    ['/settings', '/settings'],
    [
      '/cli/login?redirect_uri=http%3A%2F%2F127.0.0.1%3A5000%2Fcallback&state=abc',
      '/cli/login?redirect_uri=http%3A%2F%2F127.0.0.1%3A5000%2Fcallback&state=abc',
    ],
    ['/oauth/consent/abc#top', '/oauth/consent/abc#top'],
    ['/a/../settings', '/settings'],
    // Percent-encoded line breaks stay encoded: a path, not a header.
    ['/%0d%0aSet-Cookie:x', '/%0d%0aSet-Cookie:x'],
  ])('%s is kept as %s', (raw, kept) => {
    expect(returnToOf(raw)).toBe(kept);
  });

  test.each([
    'https://evil.example/',
    'http:/evil.example',
    '//evil.example/path',
    '/\\evil.example',
    'javascript:alert(1)',
    'settings',
    '',
    '/path\r\nLocation: https://evil.example',
    `/${'a'.repeat(2100)}`,
  ])('%j is ignored', (raw) => {
    expect(returnToOf(raw)).toBe(DEFAULT_RETURN_TO);
  });

  test('anything not a string is ignored', () => {
    expect(returnToOf(['/a', '/b'])).toBe(DEFAULT_RETURN_TO);
    expect(returnToOf(undefined)).toBe(DEFAULT_RETURN_TO);
  });
});

describe('who may sign in: a verified email of an allowed domain, unless any account may', () => {
  const rule = { allowedEmailDomains: ['example.com'], allowAny: false };

  test('a verified email of an allowed domain (any letter case) may', () => {
    expect(emailRefusal({ sub: 's', email: 'Alice@Example.COM', email_verified: true }, rule)).toBeUndefined();
  });

  test.each([
    [{ sub: 's' }, /did not give an email/],
    [{ sub: 's', email: 'alice@example.com' }, /not verified/],
    [{ sub: 's', email: 'alice@example.com', email_verified: 'true' }, /not verified/],
    [{ sub: 's', email: 'alice@evil.example', email_verified: true }, /not of a domain allowed/],
    [{ sub: 's', email: 'alice@sub.example.com', email_verified: true }, /not of a domain allowed/],
    [{ sub: 's', email: 'alice@example.com.evil.example', email_verified: true }, /not of a domain allowed/],
  ])('%j is refused', (claims, why) => {
    expect(emailRefusal(claims, rule)).toMatch(why);
  });

  test('OIDC_ALLOW_ANY lets every account in, email or not', () => {
    expect(emailRefusal({ sub: 's' }, { allowedEmailDomains: [], allowAny: true })).toBeUndefined();
  });
});
