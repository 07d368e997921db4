import { createCipheriv, randomBytes } from 'node:crypto';
import { SecretBox, type SealedSecret } from './secretBox.js';
import { developmentKey, keyIdOf, parseKeySpec, parseSecretsKey, resolveKeyring } from './keys.js';

const keyOf = (id: string) => ({ id, key: randomBytes(32) });

describe('a secret is sealed with AES-256-GCM under the current key and opens with the same key and context', () => {
  const box = new SecretBox({ current: keyOf('k1') });

  test('a sealed secret opens with the same key and context, records its key id, and does not contain the plaintext', () => {
    const sealed = box.seal('sk-live-abcdef', 'user-1:openai');
    expect(JSON.stringify(sealed)).not.toContain('sk-live-abcdef');
    expect(sealed).toMatchObject({ alg: 'aes-256-gcm', keyId: 'k1' });
    expect(box.open(sealed, 'user-1:openai')).toBe('sk-live-abcdef');
  });

  test('two seals of one secret differ (fresh IV)', () => {
    expect(box.seal('same', 'c').ciphertext).not.toBe(box.seal('same', 'c').ciphertext);
  });
});

describe('the context is bound as additional authenticated data: a sealed value copied to another record does not open', () => {
  test('another context, another key or a tampered ciphertext does not open', () => {
    const box = new SecretBox({ current: keyOf('k1') });
    const sealed = box.seal('sk-live-abcdef', 'user-1:openai');
    expect(() => box.open(sealed, 'user-2:openai')).toThrow();
    expect(() => new SecretBox({ current: keyOf('k1') }).open(sealed, 'user-1:openai')).toThrow();
    const flipped = Buffer.from(sealed.ciphertext, 'base64');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    expect(() => box.open({ ...sealed, ciphertext: flipped.toString('base64') }, 'user-1:openai')).toThrow();
  });
});

describe('keys rotate: the current key seals, previous keys still open what they sealed', () => {
  const old = keyOf('2025');
  const next = keyOf('2026');

  test('a value sealed under the old key opens once the new key is current; new seals name the new key', () => {
    const sealedOld = new SecretBox({ current: old }).seal('token-a', 'u:a');
    const rotated = new SecretBox({ current: next, previous: [old] });
    expect(rotated.open(sealedOld, 'u:a')).toBe('token-a');
    expect(rotated.needsReseal(sealedOld)).toBe(true);
    const sealedNew = rotated.seal('token-b', 'u:b');
    expect(sealedNew.keyId).toBe('2026');
    expect(rotated.needsReseal(sealedNew)).toBe(false);
    expect(() => new SecretBox({ current: old }).open(sealedNew, 'u:b')).toThrow(/key id/);
  });

  test('a key id the keyring does not have, or the right id on the wrong key, does not open', () => {
    const sealed = new SecretBox({ current: old }).seal('token', 'c');
    expect(() => new SecretBox({ current: next }).open(sealed, 'c')).toThrow(/key id this keyring does not have/);
    expect(() => new SecretBox({ current: { id: '2025', key: randomBytes(32) } }).open(sealed, 'c')).toThrow();
  });

  test('a value stored before key ids (no keyId, the catalog’s existing data) opens with the current key, and after a rotation with the previous one', () => {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', old.key, iv);
    cipher.setAAD(Buffer.from('u:legacy'));
    const ciphertext = Buffer.concat([cipher.update('legacy-secret', 'utf8'), cipher.final()]);
    const legacy: SealedSecret = {
      alg: 'aes-256-gcm',
      iv: iv.toString('base64'),
      ciphertext: ciphertext.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
    };
    expect(new SecretBox({ current: old }).open(legacy, 'u:legacy')).toBe('legacy-secret');
    expect(new SecretBox({ current: next, previous: [old] }).open(legacy, 'u:legacy')).toBe('legacy-secret');
    expect(() => new SecretBox({ current: next }).open(legacy, 'u:legacy')).toThrow();
  });

  test('a keyring refuses a key that is not 32 bytes and an id used twice', () => {
    expect(() => new SecretBox({ current: { id: 'a', key: randomBytes(16) } })).toThrow('32 bytes');
    expect(() => new SecretBox({ current: old, previous: [{ ...next, id: '2025' }] })).toThrow('used twice');
  });
});

describe('keys are configured as base64 of exactly 32 bytes, optionally after `<keyId>:`; previous keys comma-separated', () => {
  test('32 bytes in base64 or base64url are accepted; other lengths and junk are not', () => {
    const key = randomBytes(32);
    expect(parseSecretsKey(key.toString('base64'))?.equals(key)).toBe(true);
    expect(parseSecretsKey(key.toString('base64url'))?.equals(key)).toBe(true);
    expect(parseSecretsKey(randomBytes(16).toString('base64'))).toBeUndefined();
    expect(parseSecretsKey('not base64 at all!')).toBeUndefined();
  });

  test('a key without an id gets a stable id derived from it (not the key); with one, that id', () => {
    const key = randomBytes(32);
    expect(parseKeySpec(key.toString('base64'))).toEqual({ id: keyIdOf(key), key });
    expect(keyIdOf(key)).toMatch(/^k[0-9a-f]{12}$/);
    expect(parseKeySpec(`2026-01:${key.toString('base64')}`)).toEqual({ id: '2026-01', key });
    expect(parseKeySpec(`bad id:${key.toString('base64')}`)).toBeUndefined();
  });

  test('resolveKeyring: unset is the development key; bad values are named by variable, never shown', () => {
    const settings = { variable: 'X_KEY', previousVariable: 'X_PREVIOUS_KEYS', developmentLabel: 'label' };
    const dev = resolveKeyring({ ...settings, current: undefined, previous: undefined });
    expect(dev).toMatchObject({ developmentKey: true, problems: [] });
    expect(dev.keyring.current.key.equals(developmentKey('label'))).toBe(true);
    const current = randomBytes(32).toString('base64');
    const older = randomBytes(32).toString('base64');
    const good = resolveKeyring({ ...settings, current: `new:${current}`, previous: ` old:${older} ` });
    expect(good.problems).toEqual([]);
    expect(good.keyring.current.id).toBe('new');
    expect(good.keyring.previous?.map((key) => key.id)).toEqual(['old']);
    const bad = resolveKeyring({ ...settings, current: 'c2VjcmV0', previous: `old:${older},oops-secret-value` });
    expect(bad.problems).toEqual([
      'X_KEY must be base64 of exactly 32 bytes, optionally after `<keyId>:`',
      'X_PREVIOUS_KEYS entry 2 must be `<keyId>:<base64 of 32 bytes>`',
    ]);
    expect(JSON.stringify(bad.problems)).not.toContain('oops-secret-value');
  });
});
