import { createHash, randomBytes } from 'node:crypto';

/**
 * One-time codes handed to a browser (the CLI login's code, a development sign-in link): 32 bytes of
 * the CSPRNG, base64url; only their SHA-256 is stored, so a read of the database gives none away.
 * No I/O.
 */
export function generateOneTimeCode(): string {
  return randomBytes(32).toString('base64url');
}

export function hashOneTimeCode(code: string): string {
  return createHash('sha256').update(code, 'utf8').digest('hex');
}
