import { devSignInUrl, signInCodeOf } from './devSignIn.js';
import { generateOneTimeCode, hashOneTimeCode } from './oneTimeCodes.js';

describe('one-time codes (the CLI login code, the development sign-in link) are 256-bit, distinct, and stored as their SHA-256 only', () => {
  test('100 codes: all distinct, 43 base64url characters; the hash is 64 hex digits and holds nothing of the code', () => {
    const codes = new Set(Array.from({ length: 100 }, generateOneTimeCode));
    expect(codes.size).toBe(100);
    const [code = ''] = codes;
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(hashOneTimeCode(code)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashOneTimeCode(code)).not.toContain(code);
    expect(hashOneTimeCode(code)).toBe(hashOneTimeCode(code));
  });
});

describe('a development sign-in link is {public origin}/dev/sign-in?code=…, and only a code-shaped value is looked up', () => {
  test('the link is on the public origin, whatever path the origin was configured with', () => {
    expect(devSignInUrl('https://ars.example.test', 'abc_DEF-123')).toBe('https://ars.example.test/dev/sign-in?code=abc_DEF-123');
    expect(devSignInUrl('http://127.0.0.1:8080', 'x'.repeat(43))).toBe(`http://127.0.0.1:8080/dev/sign-in?code=${'x'.repeat(43)}`);
  });

  test('a generated code is accepted; absent, repeated, too short, too long or non-base64url values are not', () => {
    const code = generateOneTimeCode();
    expect(signInCodeOf(code)).toBe(code);
    for (const bad of [undefined, '', [code, code], 'short', 'x'.repeat(201), `${code.slice(0, 40)}%00`, `${code.slice(0, 40)} ab`]) {
      expect(signInCodeOf(bad)).toBeUndefined();
    }
  });
});
