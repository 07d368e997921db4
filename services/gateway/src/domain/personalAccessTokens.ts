import { hash, randomBytes } from 'node:crypto';

/** CONTRACT.md, Authentication 3: a fixed prefix followed by 32 base62 characters. */
export const TOKEN_PREFIX = 'tok_';
export const TOKEN_RANDOM_LENGTH = 32;
/** The first 12 characters are kept for display; the rest only as a SHA-256 hash. */
export const DISPLAY_PREFIX_LENGTH = 12;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const TOKEN_PATTERN = new RegExp(`^${TOKEN_PREFIX}[0-9A-Za-z]{${TOKEN_RANDOM_LENGTH}}$`);

/** A new plaintext token from the CSPRNG; rejection sampling keeps every character uniform. */
export function generateToken(): string {
  let out = '';
  while (out.length < TOKEN_RANDOM_LENGTH) {
    for (const byte of randomBytes(64)) {
      if (byte < 248 && out.length < TOKEN_RANDOM_LENGTH) out += BASE62[byte % 62];
    }
  }
  return TOKEN_PREFIX + out;
}

export function isWellFormedToken(value: string): boolean {
  return TOKEN_PATTERN.test(value);
}

/** SHA-256 hex; the one-shot `hash` (no Hash object per call): every public request hashes its PAT. */
export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}

export function displayPrefixOf(token: string): string {
  return token.slice(0, DISPLAY_PREFIX_LENGTH);
}
