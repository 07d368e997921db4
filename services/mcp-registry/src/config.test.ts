import { randomBytes } from 'node:crypto';
import { ConfigError } from '@ars/config';
import { resolveMcpRegistrySettings } from './config.js';

const base = { NODE_ENV: 'development' as const };

describe('development: a fixed development secrets key is used (and warned about)', () => {
  test('unset: the development key, the same one every start', () => {
    const settings = resolveMcpRegistrySettings(base);
    expect(settings.developmentKey).toBe(true);
    expect(settings.keyring.current.key.equals(resolveMcpRegistrySettings(base).keyring.current.key)).toBe(true);
  });
});

describe('production refuses the development key (ARS_ENV overrides NODE_ENV)', () => {
  test('unset key and token: one ConfigError naming both', () => {
    expect(() => resolveMcpRegistrySettings({ ...base, ARS_ENV: 'production' })).toThrow(ConfigError);
    expect(() => resolveMcpRegistrySettings({ ...base, ARS_ENV: 'production' })).toThrow(
      'Invalid configuration: INTERNAL_TOKEN is required in production (a string of at least 16 characters); ' +
        'MCP_REGISTRY_SECRETS_KEY is required in production (base64 of 32 bytes; unset uses the fixed development key)',
    );
  });
  test('a key given: it seals; previous keys open', () => {
    const key = randomBytes(32);
    const old = randomBytes(32);
    const settings = resolveMcpRegistrySettings({
      ...base,
      ARS_ENV: 'production',
      INTERNAL_TOKEN: 'a-production-token-0123456789',
      MCP_REGISTRY_SECRETS_KEY: `2026:${key.toString('base64')}`,
      MCP_REGISTRY_SECRETS_PREVIOUS_KEYS: `2025:${old.toString('base64')}`,
    });
    expect(settings).toMatchObject({ environment: 'production', developmentKey: false });
    expect(settings.keyring.current).toEqual({ id: '2026', key });
    expect(settings.keyring.previous).toEqual([{ id: '2025', key: old }]);
  });
});

describe('MCP_REGISTRY_SECRETS_KEY is base64 of 32 bytes; a bad value is named, never shown', () => {
  test('a short key and a bad previous entry are refused', () => {
    expect(() => resolveMcpRegistrySettings({ ...base, MCP_REGISTRY_SECRETS_KEY: 'c2hvcnQtc2VjcmV0' })).toThrow(
      'MCP_REGISTRY_SECRETS_KEY must be base64 of exactly 32 bytes, optionally after `<keyId>:`',
    );
    expect(() => resolveMcpRegistrySettings({ ...base, MCP_REGISTRY_SECRETS_PREVIOUS_KEYS: 'old:c2hvcnQtc2VjcmV0' })).toThrow(
      'MCP_REGISTRY_SECRETS_PREVIOUS_KEYS entry 1 must be `<keyId>:<base64 of 32 bytes>`',
    );
  });
});
