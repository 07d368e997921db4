import { randomBytes } from 'node:crypto';
import { SecretBox, parseSecretsKey } from './secretBox.js';

describe('provider keys are encrypted at rest with AES-256-GCM under the configured key', () => {
  const box = new SecretBox(randomBytes(32));

  test('a sealed secret opens with the same key and context, and its ciphertext does not contain the plaintext', () => {
    const sealed = box.seal('sk-live-abcdef', 'user-1:openai');
    expect(JSON.stringify(sealed)).not.toContain('sk-live-abcdef');
    expect(sealed.alg).toBe('aes-256-gcm');
    expect(box.open(sealed, 'user-1:openai')).toBe('sk-live-abcdef');
  });

  test('two seals of one secret differ (fresh IV)', () => {
    expect(box.seal('same', 'c').ciphertext).not.toBe(box.seal('same', 'c').ciphertext);
  });

  test('another context, another key or a tampered ciphertext does not open', () => {
    const sealed = box.seal('sk-live-abcdef', 'user-1:openai');
    expect(() => box.open(sealed, 'user-2:openai')).toThrow();
    expect(() => new SecretBox(randomBytes(32)).open(sealed, 'user-1:openai')).toThrow();
    const flipped = Buffer.from(sealed.ciphertext, 'base64');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    expect(() => box.open({ ...sealed, ciphertext: flipped.toString('base64') }, 'user-1:openai')).toThrow();
  });
});

describe('CATALOG_SECRETS_KEY is base64 of exactly 32 bytes', () => {
  test('32 bytes in base64 or base64url are accepted; other lengths and junk are not', () => {
    const key = randomBytes(32);
    expect(parseSecretsKey(key.toString('base64'))?.equals(key)).toBe(true);
    expect(parseSecretsKey(key.toString('base64url'))?.equals(key)).toBe(true);
    expect(parseSecretsKey(randomBytes(16).toString('base64'))).toBeUndefined();
    expect(parseSecretsKey('not base64 at all!')).toBeUndefined();
  });
});
