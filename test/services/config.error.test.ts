import { spawnSync } from 'node:child_process';
import { fromRoot, SERVICE_NAMES } from '@ars/stack';
import { PRODUCTION_GATEWAY_ENV } from '../support/production.js';

function startWith(service: string, env: NodeJS.ProcessEnv): { status: number | null; stderr: string; stdout: string } {
  const result = spawnSync(process.execPath, [fromRoot(`services/${service}/dist/main.js`)], {
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
    // A safety net only (the process exits by itself at once): loading a service on a busy machine
    // has taken over 20 s, so the net sits just under jest's 60 s.
    timeout: 50_000,
  });
  return { status: result.status, stderr: result.stderr, stdout: result.stdout };
}

const validEnv: NodeJS.ProcessEnv = {
  MONGO_URL: 'mongodb://127.0.0.1:1',
  KAFKA_BROKERS: '127.0.0.1:1',
  CATALOG_URL: 'http://127.0.0.1:1',
  RUNS_URL: 'http://127.0.0.1:1',
  SANDBOXES_URL: 'http://127.0.0.1:1',
  AUTOMATIONS_ENGINE_URL: 'http://127.0.0.1:1',
  PR_REVIEW_URL: 'http://127.0.0.1:1',
  MCP_REGISTRY_URL: 'http://127.0.0.1:1',
};

describe('a bad or missing configuration value stops the process with one clear line naming the variable', () => {
  test.each(SERVICE_NAMES)('%s: PORT=abc exits 1 with one line naming PORT', (service) => {
    const result = startWith(service, { ...validEnv, PORT: 'abc' });
    expect(result.status).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('PORT');
    expect(lines[0]).toContain('abc');
    expect(result.stderr).not.toMatch(/\bat .*\.js:\d+/); // no stack trace
  });

  test('a missing required variable is named', () => {
    const { MONGO_URL: _omitted, ...withoutMongo } = validEnv;
    const result = startWith('runs', withoutMongo);
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('MONGO_URL');
  });

  test('the gateway names a malformed peer URL', () => {
    const result = startWith('gateway', { ...validEnv, RUNS_URL: 'not a url' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('RUNS_URL');
  });
});

describe('ARS_ENV=production refuses every development default at start-up with one line naming each', () => {
  const token = 'a-production-internal-token-0123456789';
  /** Everything production asks for, so each test below leaves out exactly what it names. */
  const productionEnv: NodeJS.ProcessEnv = {
    ...validEnv,
    ...PRODUCTION_GATEWAY_ENV,
    INTERNAL_TOKEN: token,
    REDIS_URL: 'redis://127.0.0.1:1',
    CATALOG_SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
    MCP_REGISTRY_SECRETS_KEY: Buffer.alloc(32, 9).toString('base64'),
    GITHUB_APP_ID: '1',
    GITHUB_APP_PRIVATE_KEY: 'not-a-key',
    CODEX_PATH: 'bundled',
    CLAUDE_CODE_PATH: '/usr/local/bin/claude',
  };

  function refusalLine(service: string, env: NodeJS.ProcessEnv): string {
    const result = startWith(service, env);
    expect(result.status).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(result.stderr).not.toMatch(/\bat .*\.js:\d+/);
    expect(result.stdout).toBe('');
    return lines[0] ?? '';
  }

  test.each(SERVICE_NAMES)('%s: INTERNAL_TOKEN unset is refused, named', (service) => {
    const { INTERNAL_TOKEN: _omitted, ...withoutToken } = productionEnv;
    expect(refusalLine(service, withoutToken)).toMatch(/^Invalid configuration: .*INTERNAL_TOKEN is required/);
  });

  test.each(SERVICE_NAMES)('%s: INTERNAL_TOKEN shorter than 16 characters is refused, its value not shown', (service) => {
    const line = refusalLine(service, { ...productionEnv, INTERNAL_TOKEN: 'short-token' });
    expect(line).toContain('INTERNAL_TOKEN must be a string of at least 16 characters (got a value that is not shown)');
    expect(line).not.toContain('short-token');
  });

  test('sandboxes: the stand-in CLIs (HARNESS_CLIS=stand-in) are refused, named', () => {
    expect(refusalLine('sandboxes', { ...productionEnv, HARNESS_CLIS: 'stand-in' })).toBe(
      'Invalid configuration: HARNESS_CLIS=stand-in is refused in production (scripted stand-ins, not agents, would run every run)',
    );
  });

  test('sandboxes: CODEX_PATH and CLAUDE_CODE_PATH unset are the bundled CLIs, accepted: the refusal named is another one', () => {
    const { CODEX_PATH: _codex, CLAUDE_CODE_PATH: _claude, ...bundled } = productionEnv;
    expect(refusalLine('sandboxes', { ...bundled, SANDBOX_ISOLATION: 'none' })).toBe(
      'Invalid configuration: SANDBOX_ISOLATION=none is refused in production (agents would run unisolated)',
    );
  });

  test('catalog: the fixed development secrets key and the local source host alone (no GitHub App) are refused', () => {
    const { CATALOG_SECRETS_KEY: _key, GITHUB_APP_ID: _id, GITHUB_APP_PRIVATE_KEY: _pem, ...development } = productionEnv;
    expect(refusalLine('catalog', development)).toBe(
      'Invalid configuration: CATALOG_SECRETS_KEY is required in production (base64 of 32 bytes; unset uses the fixed development key); ' +
        'GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY are required in production (the local source host is for development)',
    );
  });

  test('mcp-registry: the fixed development secrets key is refused', () => {
    const { MCP_REGISTRY_SECRETS_KEY: _key, ...development } = productionEnv;
    expect(refusalLine('mcp-registry', development)).toBe(
      'Invalid configuration: MCP_REGISTRY_SECRETS_KEY is required in production (base64 of 32 bytes; unset uses the fixed development key)',
    );
  });

  test('gateway: PUBLIC_BASE_URL left at the loopback default is refused; with the token missing too, both on the one line', () => {
    const { PUBLIC_BASE_URL: _origin, INTERNAL_TOKEN: _token, ...development } = productionEnv;
    expect(refusalLine('gateway', development)).toBe(
      'Invalid configuration: INTERNAL_TOKEN is required in production (a string of at least 16 characters); ' +
        'PUBLIC_BASE_URL is required in production (the origin browsers see; the default is the loopback address)',
    );
  });

  test('gateway: no OAUTH_COOKIE_KEYS (the public development key would sign OAuth cookies) is refused, named', () => {
    const { OAUTH_COOKIE_KEYS: _keys, ...development } = productionEnv;
    expect(refusalLine('gateway', development)).toBe(
      'Invalid configuration: OAUTH_COOKIE_KEYS is required in production (the development key signing OAuth cookies is public)',
    );
  });

  test('gateway: no sign-in method (no OIDC_*) is refused, named: nobody could sign in', () => {
    const { OIDC_ISSUER: _issuer, OIDC_CLIENT_ID: _id, OIDC_CLIENT_SECRET: _secret, OIDC_ALLOWED_EMAIL_DOMAINS: _domains, ...withoutSignIn } = productionEnv;
    expect(refusalLine('gateway', withoutSignIn)).toBe(
      'Invalid configuration: a sign-in method is required in production (OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET, or GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET); without one nobody can sign in (the development account route does not exist there)',
    );
  });

  test('gateway: a sign-in open to anyone (no OIDC_ALLOWED_EMAIL_DOMAINS, no OIDC_ALLOW_ANY=true) and an http:// issuer are refused, named', () => {
    const { OIDC_ALLOWED_EMAIL_DOMAINS: _domains, ...openToAnyone } = productionEnv;
    expect(refusalLine('gateway', { ...openToAnyone, OIDC_ISSUER: 'http://login.example.test' })).toBe(
      'Invalid configuration: OIDC_ALLOWED_EMAIL_DOMAINS is required in production (who may sign in); to let every account of the issuer in, say so with OIDC_ALLOW_ANY=true; ' +
        'OIDC_ISSUER must be an https:// URL in production',
    );
    // With OIDC_ALLOW_ANY=true the only refusal left is the one this line leaves out on purpose.
    const anyoneSaidSo: NodeJS.ProcessEnv = { ...openToAnyone, OIDC_ALLOW_ANY: 'true' };
    delete anyoneSaidSo.OAUTH_COOKIE_KEYS;
    expect(refusalLine('gateway', anyoneSaidSo)).toBe(
      'Invalid configuration: OAUTH_COOKIE_KEYS is required in production (the development key signing OAuth cookies is public)',
    );
  });

  test('gateway: sign-in with GitHub open to anyone (no GITHUB_ALLOWED_ORGS, no GITHUB_ALLOW_ANY=true) is refused, named; with an organization it is a sign-in method', () => {
    const { OIDC_ISSUER: _issuer, OIDC_CLIENT_ID: _id, OIDC_CLIENT_SECRET: _secret, ...withoutOidc } = productionEnv;
    const github = { ...withoutOidc, GITHUB_CLIENT_ID: 'Iv23.app', GITHUB_CLIENT_SECRET: 'a-github-client-secret' };
    expect(refusalLine('gateway', github)).toBe(
      'Invalid configuration: GITHUB_ALLOWED_ORGS is required in production (who may sign in with GitHub); to let every GitHub account in, say so with GITHUB_ALLOW_ANY=true',
    );
    const withOrg: NodeJS.ProcessEnv = { ...github, GITHUB_ALLOWED_ORGS: 'acme' };
    delete withOrg.OAUTH_COOKIE_KEYS;
    expect(refusalLine('gateway', withOrg)).toBe(
      'Invalid configuration: OAUTH_COOKIE_KEYS is required in production (the development key signing OAuth cookies is public)',
    );
  });

  test('gateway, in any environment: OpenID Connect configured by halves is refused, naming what is missing', () => {
    const line = refusalLine('gateway', { ...validEnv, REDIS_URL: 'redis://127.0.0.1:1', OIDC_ISSUER: 'http://127.0.0.1:9/idp' });
    expect(line).toBe(
      'Invalid configuration: OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are required with OIDC_ISSUER (OpenID Connect sign-in needs the issuer, the client id and its secret)',
    );
  });

  test('NODE_ENV=production without ARS_ENV is production too; ARS_ENV=development overrides it', () => {
    const { ARS_ENV: _env, INTERNAL_TOKEN: _token, ...nodeEnvOnly } = productionEnv;
    expect(refusalLine('gateway', { ...nodeEnvOnly, NODE_ENV: 'production' })).toContain('INTERNAL_TOKEN is required in production');
    const development = startWith('gateway', { ...nodeEnvOnly, NODE_ENV: 'production', ARS_ENV: 'development', PORT: 'abc' });
    expect(development.stderr).not.toContain('INTERNAL_TOKEN');
    expect(development.stderr).toContain('PORT');
  });
});
