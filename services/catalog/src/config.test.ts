import { randomBytes } from 'node:crypto';
import { ConfigError } from '@ars/config';
import { resolveCatalogSettings } from './config.js';

const base = { NODE_ENV: 'development' as const, GITHUB_API_URL: 'https://api.github.com', GITHUB_WEB_URL: 'https://github.com' };

describe('development: SOURCE_HOST_DIR defaults under .stack/ and a fixed development secrets key is used (and warned about)', () => {
  test('defaults', () => {
    const settings = resolveCatalogSettings(base);
    expect(settings.sourceHostDir).toMatch(/\.stack\/source-host$/);
    expect(settings.developmentKey).toBe(true);
    expect(settings.keyring.current.key).toHaveLength(32);
    expect(settings.github).toBeUndefined();
  });
});

describe('production refuses the development defaults: the fixed secrets key, no GitHub App (ARS_ENV overrides NODE_ENV)', () => {
  const github = { GITHUB_APP_ID: '123', GITHUB_APP_PRIVATE_KEY: '-----BEGIN RSA PRIVATE KEY-----\\nabc\\n-----END RSA PRIVATE KEY-----' };
  const token = { INTERNAL_TOKEN: 'a-production-token-0123456789' };
  test('every default in use: one ConfigError naming each, the internal token too', () => {
    expect(() => resolveCatalogSettings({ ...base, ARS_ENV: 'production' })).toThrow(ConfigError);
    expect(() => resolveCatalogSettings({ ...base, ARS_ENV: 'production' })).toThrow(
      'Invalid configuration: INTERNAL_TOKEN is required in production (a string of at least 16 characters); ' +
        'CATALOG_SECRETS_KEY is required in production (base64 of 32 bytes; unset uses the fixed development key); ' +
        'GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY are required in production (the local source host is for development)',
    );
  });
  test('the same configuration outside production is fine (ARS_ENV=development overrides NODE_ENV=production)', () => {
    expect(resolveCatalogSettings({ ...base, NODE_ENV: 'production', ARS_ENV: 'development' }).environment).toBe('development');
  });
  test('key and GitHub App given: the configured key is used, SOURCE_HOST_DIR is not needed', () => {
    const key = randomBytes(32);
    const settings = resolveCatalogSettings({ ...base, ...token, ...github, NODE_ENV: 'production', CATALOG_SECRETS_KEY: key.toString('base64') });
    expect(settings).toMatchObject({ environment: 'production', developmentKey: false, github: { appId: '123' } });
    expect(settings.keyring.current.key.equals(key)).toBe(true);
  });
});

describe('CATALOG_SECRETS_KEY must be base64 of 32 bytes; the GitHub App needs id and key together', () => {
  test('a short key is refused', () => {
    expect(() => resolveCatalogSettings({ ...base, CATALOG_SECRETS_KEY: randomBytes(16).toString('base64') })).toThrow(
      'CATALOG_SECRETS_KEY must be base64 of exactly 32 bytes, optionally after `<keyId>:`',
    );
  });
  test('GITHUB_APP_ID without a key is refused; both give the adapter settings with \\n-escaped PEM restored', () => {
    expect(() => resolveCatalogSettings({ ...base, GITHUB_APP_ID: '123' })).toThrow('GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY must be set together');
    const settings = resolveCatalogSettings({
      ...base,
      GITHUB_APP_ID: '123',
      GITHUB_APP_PRIVATE_KEY: '-----BEGIN RSA PRIVATE KEY-----\\nabc\\n-----END RSA PRIVATE KEY-----',
    });
    expect(settings.github).toEqual({
      appId: '123',
      privateKey: '-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----',
      apiUrl: 'https://api.github.com',
      webUrl: 'https://github.com',
      client: undefined,
    });
  });
  test('the App’s OAuth client (rechecks with refresh tokens) needs its id and secret together', () => {
    const app = { ...base, GITHUB_APP_ID: '123', GITHUB_APP_PRIVATE_KEY: 'pem' };
    expect(() => resolveCatalogSettings({ ...app, GITHUB_CLIENT_ID: 'Iv23.x' })).toThrow('GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET must be set together');
    expect(resolveCatalogSettings({ ...app, GITHUB_CLIENT_ID: 'Iv23.x', GITHUB_CLIENT_SECRET: 's' }).github?.client).toEqual({ id: 'Iv23.x', secret: 's' });
  });
});
