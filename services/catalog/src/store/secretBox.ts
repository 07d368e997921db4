import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** A secret sealed with AES-256-GCM: a fresh 12-byte IV per seal, the 16-byte tag, all base64. */
export interface SealedSecret {
  alg: 'aes-256-gcm';
  iv: string;
  ciphertext: string;
  tag: string;
}

/**
 * Encrypts secrets at rest with one 32-byte key from configuration. `context` is bound as
 * additional authenticated data (e.g. `user:provider`), so a sealed value copied to another
 * record does not open.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('the secrets key must be 32 bytes');
    this.key = Buffer.from(key);
  }

  seal(plaintext: string, context: string): SealedSecret {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { alg: 'aes-256-gcm', iv: iv.toString('base64'), ciphertext: ciphertext.toString('base64'), tag: cipher.getAuthTag().toString('base64') };
  }

  open(sealed: SealedSecret, context: string): string {
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(sealed.iv, 'base64'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]).toString('utf8');
  }
}

/** The development key: fixed, so a development database stays readable across restarts. Never for production. */
export function developmentSecretsKey(): Buffer {
  return createHash('sha256').update('agent-run-service catalog development secrets key').digest();
}

/** `CATALOG_SECRETS_KEY`: base64 (standard or url-safe) of exactly 32 bytes. */
export function parseSecretsKey(value: string): Buffer | undefined {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) return undefined;
  const key = Buffer.from(value, value.includes('-') || value.includes('_') ? 'base64url' : 'base64');
  return key.length === 32 ? key : undefined;
}
