import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig, refuseDevelopmentDefaults, serviceConfig } from '@ars/config';
import { checkDrainFitsShutdown, sandboxesConfigSchema, sandboxesDevelopmentDefaults } from './config.js';
import { harnessExecutable } from './sandboxes.js';
import { standInExecutable, standInFiles } from './harness/index.js';
import { STAND_IN_LAUNCHERS } from '@ars/harness-stand-ins';

const schema = { ...serviceConfig({ service: 'sandboxes', port: 8083 }), ...sandboxesConfigSchema };

describe('configuration comes through the config loader', () => {
  test('CATALOG_URL and INTERNAL_TOKEN are required', () => {
    expect(() => loadConfig(schema, {})).toThrow(ConfigError);
    expect(() => loadConfig(schema, {})).toThrow(/CATALOG_URL/);
  });
  test('defaults: stand-ins, heartbeat 5 s, lost after 20 s, a root under the temporary directory', () => {
    const config = loadConfig(schema, { CATALOG_URL: 'http://127.0.0.1:8081', INTERNAL_TOKEN: 'x'.repeat(16) });
    expect(config).toMatchObject({ SESSION_HEARTBEAT_MS: 5000, SESSION_LOST_AFTER_MS: 20000 });
    expect(config.CODEX_PATH).toBeUndefined();
    expect(config.CLAUDE_CODE_PATH).toBeUndefined();
    expect(config.SANDBOX_ROOT).toMatch(/ars-sandboxes$/);
  });
  test('CODEX_PATH / CLAUDE_CODE_PATH: unset → stand-in, bundled → the SDK’s CLI, else the path', () => {
    expect(harnessExecutable('codex', undefined)).toBe(standInExecutable('codex'));
    expect(harnessExecutable('claude-code', 'bundled')).toBeUndefined();
    expect(harnessExecutable('codex', '/opt/codex/bin/codex')).toBe('/opt/codex/bin/codex');
  });
  // The service knows the stand-ins only by their paths in the repository (it must not import them):
  // this holds those paths to the package's own, and every file an isolated sandbox binds for one to
  // a file that is there (after the build).
  test('unset: @ars/harness-stand-ins’ launchers; every file a sandbox binds for a stand-in exists', () => {
    for (const harness of ['codex', 'claude-code'] as const) {
      expect(harnessExecutable(harness, undefined)).toBe(STAND_IN_LAUNCHERS[harness]);
      for (const path of standInFiles(harness)) expect(existsSync(path)).toBe(true);
    }
  });
});

describe('SANDBOX_ISOLATION: bwrap by default; none only outside production', () => {
  const base = { CATALOG_URL: 'http://127.0.0.1:8081', INTERNAL_TOKEN: 'x'.repeat(16) };
  test('the default is bwrap; none and bwrap are the only values', () => {
    expect(loadConfig(schema, base).SANDBOX_ISOLATION).toBe('bwrap');
    expect(loadConfig(schema, { ...base, SANDBOX_ISOLATION: 'none' }).SANDBOX_ISOLATION).toBe('none');
    expect(() => loadConfig(schema, { ...base, SANDBOX_ISOLATION: 'docker' })).toThrow(/SANDBOX_ISOLATION/);
  });
  test('ARS_ENV=production refuses SANDBOX_ISOLATION=none with one line naming it', () => {
    const production = loadConfig(schema, { ...base, ARS_ENV: 'production', SANDBOX_ISOLATION: 'none', CODEX_PATH: 'bundled', CLAUDE_CODE_PATH: 'bundled' });
    expect(() => refuseDevelopmentDefaults(production, sandboxesDevelopmentDefaults(production))).toThrow(ConfigError);
    expect(() => refuseDevelopmentDefaults(production, sandboxesDevelopmentDefaults(production))).toThrow(
      /^Invalid configuration: SANDBOX_ISOLATION=none is refused in production[^\n]*$/,
    );
  });
  test('none in development, and bwrap in production, are accepted', () => {
    const development = loadConfig(schema, { ...base, ARS_ENV: 'development', SANDBOX_ISOLATION: 'none' });
    expect(() => refuseDevelopmentDefaults(development, sandboxesDevelopmentDefaults(development))).not.toThrow();
    const production = loadConfig(schema, { ...base, ARS_ENV: 'production', CODEX_PATH: 'bundled', CLAUDE_CODE_PATH: 'bundled' });
    expect(() => refuseDevelopmentDefaults(production, sandboxesDevelopmentDefaults(production))).not.toThrow();
  });
});

describe('SANDBOX_DRAIN_MS: 0 by default; a drain must leave 5 s of SHUTDOWN_TIMEOUT_MS', () => {
  const base = { CATALOG_URL: 'http://127.0.0.1:8081', INTERNAL_TOKEN: 'x'.repeat(16) };
  test('the default is 0 (live runs aborted at once), which fits any shutdown limit', () => {
    const config = loadConfig(schema, { ...base, SHUTDOWN_TIMEOUT_MS: '0' });
    expect(config.SANDBOX_DRAIN_MS).toBe(0);
    expect(() => checkDrainFitsShutdown(config)).not.toThrow();
  });
  test('a drain within SHUTDOWN_TIMEOUT_MS − 5000 is accepted; a longer one is refused naming both', () => {
    expect(() => checkDrainFitsShutdown(loadConfig(schema, { ...base, SANDBOX_DRAIN_MS: '5000', SHUTDOWN_TIMEOUT_MS: '10000' }))).not.toThrow();
    expect(() => checkDrainFitsShutdown(loadConfig(schema, { ...base, SANDBOX_DRAIN_MS: '5001', SHUTDOWN_TIMEOUT_MS: '10000' }))).toThrow(
      /^Invalid configuration: SANDBOX_DRAIN_MS=5001 must leave 5000 ms of SHUTDOWN_TIMEOUT_MS=10000$/,
    );
  });
});

describe('the service refuses to start, with one line, when sandboxes cannot be isolated as configured', () => {
  const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
  const start = (env: Record<string, string>): { status: number | null; stderr: string } => {
    const answer = spawnSync(process.execPath, [main], {
      env: { CATALOG_URL: 'http://127.0.0.1:9', INTERNAL_TOKEN: 'x'.repeat(16), MONGO_URL: 'mongodb://127.0.0.1:9', KAFKA_BROKERS: '127.0.0.1:9', ...env },
      encoding: 'utf8',
      // Loading the service's modules alone can take half a minute on a loaded machine.
      timeout: 150_000,
    });
    return { status: answer.status, stderr: answer.stderr.trim() };
  };
  test('ARS_ENV=production with SANDBOX_ISOLATION=none: exit 1, one line naming it', () => {
    const { status, stderr } = start({ ARS_ENV: 'production', SANDBOX_ISOLATION: 'none', PATH: process.env.PATH ?? '' });
    expect(status).toBe(1);
    expect(stderr.split('\n')).toHaveLength(1);
    expect(stderr).toContain('SANDBOX_ISOLATION=none is refused in production');
  }, 180_000);
  test('a drain longer than the shutdown allows: exit 1, one line naming SANDBOX_DRAIN_MS', () => {
    const { status, stderr } = start({ SANDBOX_DRAIN_MS: '60000', PATH: process.env.PATH ?? '' });
    expect(status).toBe(1);
    expect(stderr.split('\n')).toHaveLength(1);
    expect(stderr).toContain('SANDBOX_DRAIN_MS=60000 must leave 5000 ms of SHUTDOWN_TIMEOUT_MS=10000');
  }, 180_000);
  test('bwrap not installed (not on PATH): exit 1, one line naming SANDBOX_ISOLATION and bwrap', () => {
    const { status, stderr } = start({ PATH: '/nonexistent' });
    expect(status).toBe(1);
    expect(stderr.split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/SANDBOX_ISOLATION=bwrap cannot isolate sandboxes here: bwrap is not installed/);
  }, 180_000);
});

describe('the bounds are configuration: sessions per instance, live sandboxes per user, lifecycle events, snapshot retention', () => {
  const required = { CATALOG_URL: 'http://127.0.0.1:8081', INTERNAL_TOKEN: 'x'.repeat(16) };
  test('defaults: 8 sessions, 20 live sandboxes per user, 200 lifecycle events, snapshots kept 7 days and 50 per user', () => {
    expect(loadConfig(schema, required)).toMatchObject({
      SANDBOX_MAX_SESSIONS: 8,
      SANDBOX_MAX_LIVE_PER_USER: 20,
      SANDBOX_LIFECYCLE_EVENTS_MAX: 200,
      SNAPSHOT_RETENTION_MS: 7 * 24 * 3_600_000,
      SNAPSHOT_MAX_PER_USER: 50,
    });
  });
  test('set values are read; zero or non-integers are refused naming the variable', () => {
    expect(loadConfig(schema, { ...required, SANDBOX_MAX_SESSIONS: '1', SANDBOX_MAX_LIVE_PER_USER: '3', SNAPSHOT_RETENTION_MS: '4000' })).toMatchObject({
      SANDBOX_MAX_SESSIONS: 1,
      SANDBOX_MAX_LIVE_PER_USER: 3,
      SNAPSHOT_RETENTION_MS: 4000,
    });
    expect(() => loadConfig(schema, { ...required, SANDBOX_MAX_SESSIONS: '0' })).toThrow(/SANDBOX_MAX_SESSIONS/);
    expect(() => loadConfig(schema, { ...required, SANDBOX_MAX_LIVE_PER_USER: 'many' })).toThrow(/SANDBOX_MAX_LIVE_PER_USER/);
    expect(() => loadConfig(schema, { ...required, SANDBOX_LIFECYCLE_EVENTS_MAX: '2' })).toThrow(/SANDBOX_LIFECYCLE_EVENTS_MAX/);
    expect(() => loadConfig(schema, { ...required, SNAPSHOT_MAX_PER_USER: '0' })).toThrow(/SNAPSHOT_MAX_PER_USER/);
  });
});
