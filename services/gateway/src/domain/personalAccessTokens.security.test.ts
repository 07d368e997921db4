import { generateToken, hashToken, displayPrefixOf, isWellFormedToken } from './personalAccessTokens.js';

describe('PAT format: a fixed prefix tok_ followed by 32 base62 characters', () => {
  test('a generated token has the prefix and 32 base62 characters', () => {
    for (let i = 0; i < 200; i += 1) expect(generateToken()).toMatch(/^tok_[0-9A-Za-z]{32}$/);
  });
  test('tokens do not repeat', () => {
    const seen = new Set(Array.from({ length: 1000 }, generateToken));
    expect(seen.size).toBe(1000);
  });
  test('every base62 character occurs (the generator is not biased to a subset)', () => {
    const chars = new Set(Array.from({ length: 300 }, generateToken).join(''));
    for (const c of '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz') expect(chars.has(c)).toBe(true);
  });
  test.each(['', 'tok_', 'tok_short', `pat_${'a'.repeat(32)}`, `tok_${'a'.repeat(33)}`, `tok_${'-'.repeat(32)}`])('%j is not a well-formed token', (value) =>
    expect(isWellFormedToken(value)).toBe(false),
  );
});

describe('the service stores a SHA-256 hash and the first 12 characters as a display prefix', () => {
  test('hash is the hex SHA-256 of the plaintext', () => {
    expect(hashToken('tok_abc')).toBe('26cfed5080d011f7069c952bf630b4d33f9e445d61bd5336760217f08a4c6339');
    expect(hashToken('tok_abc')).not.toBe(hashToken('tok_abd'));
  });
  test('display prefix is the first 12 characters', () => {
    const token = generateToken();
    expect(displayPrefixOf(token)).toBe(token.slice(0, 12));
    expect(displayPrefixOf(token).startsWith('tok_')).toBe(true);
  });
});
