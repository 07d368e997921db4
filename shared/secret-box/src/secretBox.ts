import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * A secret sealed with AES-256-GCM: a fresh 12-byte IV per seal, the 16-byte tag, all base64, and the
 * id of the key that sealed it. Values sealed before key ids existed have no `keyId`: they open with
 * the current key.
 */
export interface SealedSecret {
  alg: 'aes-256-gcm';
  keyId?: string;
  iv: string;
  ciphertext: string;
  tag: string;
}

/** One 32-byte key and the id recorded in what it seals. */
export interface SecretKey {
  id: string;
  key: Buffer;
}

/** The key that seals (`current`) and older keys that still open what they sealed (`previous`). */
export interface Keyring {
  current: SecretKey;
  previous?: readonly SecretKey[];
}

function copyOf(key: SecretKey): SecretKey {
  if (key.key.length !== 32) throw new Error(`the secrets key ${key.id} must be 32 bytes`);
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(key.id)) throw new Error('a key id is 1–64 letters, digits, `.`, `_` or `-`');
  return { id: key.id, key: Buffer.from(key.key) };
}

/**
 * Encrypts secrets at rest. `context` is bound as additional authenticated data (e.g. `user:provider`),
 * so a sealed value copied to another record does not open. Seals with the keyring's current key and
 * records its id; opens with the key of the recorded id (current or previous), or with the current
 * key when none is recorded. An unknown key id, another context, another key or a tampered value throws.
 */
export class SecretBox {
  private readonly current: SecretKey;
  private readonly byId: ReadonlyMap<string, SecretKey>;

  constructor(keyring: Keyring) {
    this.current = copyOf(keyring.current);
    const byId = new Map<string, SecretKey>([[this.current.id, this.current]]);
    for (const key of keyring.previous ?? []) {
      if (byId.has(key.id)) throw new Error(`the key id ${key.id} is used twice in the keyring`);
      byId.set(key.id, copyOf(key));
    }
    this.byId = byId;
  }

  /** The id new seals record. */
  get currentKeyId(): string {
    return this.current.id;
  }

  seal(plaintext: string, context: string): SealedSecret {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return {
      alg: 'aes-256-gcm',
      keyId: this.current.id,
      iv: iv.toString('base64'),
      ciphertext: ciphertext.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
    };
  }

  open(sealed: SealedSecret, context: string): string {
    if (sealed.alg !== 'aes-256-gcm') throw new Error('the sealed value is not aes-256-gcm');
    if (sealed.keyId === undefined) return this.openLegacy(sealed, context);
    const key = this.byId.get(sealed.keyId);
    if (!key) throw new Error(`the sealed value names a key id this keyring does not have (${sealed.keyId})`);
    return openWith(key, sealed, context);
  }

  /**
   * A value sealed before key ids: the current key, then each previous one (the GCM tag tells the
   * right key), so data written before the first rotation still opens once its key is a previous one.
   */
  private openLegacy(sealed: SealedSecret, context: string): string {
    let firstFailure: unknown;
    for (const key of [this.current, ...[...this.byId.values()].filter((candidate) => candidate !== this.current)]) {
      try {
        return openWith(key, sealed, context);
      } catch (error) {
        firstFailure ??= error;
      }
    }
    throw firstFailure;
  }

  /** True when the value was sealed with another key than the current one (re-seal it on the next write). */
  needsReseal(sealed: SealedSecret): boolean {
    return sealed.keyId !== this.current.id;
  }
}

function openWith(key: SecretKey, sealed: SealedSecret, context: string): string {
  const decipher = createDecipheriv('aes-256-gcm', key.key, Buffer.from(sealed.iv, 'base64'));
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]).toString('utf8');
}
