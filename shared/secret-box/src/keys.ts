import { createHash } from 'node:crypto';
import type { Keyring, SecretKey } from './secretBox.js';

/** A fixed development key from a label: a development database stays readable across restarts. Never for production. */
export function developmentKey(label: string): Buffer {
  return createHash('sha256').update(label).digest();
}

/** The id of a key given without one: `k` and 12 hex characters of a SHA-256 of the key (not the key). */
export function keyIdOf(key: Buffer): string {
  return `k${createHash('sha256').update('ars secret-box key id\0').update(key).digest('hex').slice(0, 12)}`;
}

/** Base64 (standard or url-safe) of exactly 32 bytes, else undefined. */
export function parseSecretsKey(value: string): Buffer | undefined {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) return undefined;
  const key = Buffer.from(value, value.includes('-') || value.includes('_') ? 'base64url' : 'base64');
  return key.length === 32 ? key : undefined;
}

/** `<base64>` or `<keyId>:<base64>` (base64 has no `:`): the key and its id (derived when not given). */
export function parseKeySpec(spec: string): SecretKey | undefined {
  const colon = spec.indexOf(':');
  const id = colon < 0 ? undefined : spec.slice(0, colon);
  if (id !== undefined && !/^[A-Za-z0-9._-]{1,64}$/.test(id)) return undefined;
  const key = parseSecretsKey(colon < 0 ? spec : spec.slice(colon + 1));
  return key ? { id: id ?? keyIdOf(key), key } : undefined;
}

export interface KeyringSettings {
  /** The current key's variable name (messages only), e.g. `CATALOG_SECRETS_KEY`. */
  variable: string;
  /** Its value: `<base64>` or `<keyId>:<base64>`; unset uses the development key. */
  current: string | undefined;
  /** The previous keys' variable name (messages only), e.g. `CATALOG_SECRETS_PREVIOUS_KEYS`. */
  previousVariable: string;
  /** Comma-separated `<keyId>:<base64>` (or `<base64>`), each opening what it sealed. */
  previous: string | undefined;
  /** The label the development key is derived from. */
  developmentLabel: string;
}

export interface ResolvedKeyring {
  keyring: Keyring;
  /** True when no key was configured and the development key is in use. */
  developmentKey: boolean;
  /** What is wrong with the values, one sentence each, never quoting them. */
  problems: string[];
}

/** A keyring from configuration values; the problems name the variables and never show a value. */
export function resolveKeyring(settings: KeyringSettings): ResolvedKeyring {
  const problems: string[] = [];
  let current: SecretKey | undefined;
  if (settings.current) {
    current = parseKeySpec(settings.current);
    if (!current) problems.push(`${settings.variable} must be base64 of exactly 32 bytes, optionally after \`<keyId>:\``);
  }
  const previous: SecretKey[] = [];
  for (const [index, spec] of (settings.previous ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .entries()) {
    const key = parseKeySpec(spec);
    if (!key) problems.push(`${settings.previousVariable} entry ${index + 1} must be \`<keyId>:<base64 of 32 bytes>\``);
    else previous.push(key);
  }
  const currentKey = current ?? { id: keyIdOf(developmentKey(settings.developmentLabel)), key: developmentKey(settings.developmentLabel) };
  const ids = new Set<string>([currentKey.id]);
  for (const key of previous) {
    if (ids.has(key.id)) problems.push(`${settings.previousVariable} repeats the key id ${key.id}`);
    ids.add(key.id);
  }
  return { keyring: { current: currentKey, previous }, developmentKey: !current, problems };
}
