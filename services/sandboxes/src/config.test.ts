import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig, refuseDevelopmentDefaults, serviceConfig } from '@ars/config';
import { checkDrainFitsShutdown, sandboxesConfigSchema, sandboxesDevelopmentDefaults } from './config.js';
import { harnessClis } from './harness/harnessClis.js';
import { standInFiles } from './harness/index.js';
import { STAND_IN_LAUNCHERS } from '@ars/harness-stand-ins';

const schema = { ...serviceConfig({ service: 'sandboxes', port: 8083 }), ...sandboxesConfigSchema };

describe('configuration comes through the config loader', () => {
  test('CATALOG_URL and INTERNAL_TOKEN are required', () => {
    expect(() => loadConfig(schema, {})).toThrow(ConfigError);
    expect(() => loadConfig(schema, {})).toThrow(/CATALOG_URL/);
  });
  test('defaults: the real CLIs (the SDKs’ bundled ones), heartbeat 5 s, lost after 20 s, a root under the temporary directory', () => {
    const config = loadConfig(schema, { CATALOG_URL: 'http://127.0.0.1:8081', INTERNAL_TOKEN: 'x'.repeat(16) });
    expect(config).toMatchObject({ HARNESS_CLIS: 'real', SESSION_HEARTBEAT_MS: 5000, SESSION_LOST_AFTER_MS: 20000 });
    expect(config.CODEX_PATH).toBeUndefined();
    expect(config.CLAUDE_CODE_PATH).toBeUndefined();
    expect(config.SANDBOX_ROOT).toMatch(/ars-sandboxes$/);
    const bundled = { executablePath: undefined, files: undefined, standIn: false, standInTools: null };
    expect(harnessClis(config)).toEqual({ codex: bundled, 'claude-code': bundled });
  });
});

describe('HARNESS_CLIS: the real CLIs or the stand-ins, by default; CODEX_PATH / CLAUDE_CODE_PATH: a path names that harness’s CLI', () => {
  test('real: `bundled` and unset are the SDK’s CLI, a path is that path; none is a stand-in (each calls a model)', () => {
    const clis = harnessClis({ HARNESS_CLIS: 'real', CODEX_PATH: '/opt/codex/bin/codex', CLAUDE_CODE_PATH: 'bundled' });
    expect(clis.codex).toEqual({ executablePath: '/opt/codex/bin/codex', files: undefined, standIn: false, standInTools: null });
    expect(clis['claude-code']).toEqual({ executablePath: undefined, files: undefined, standIn: false, standInTools: null });
  });
  // The service knows the stand-ins only by their paths in the repository (it must not import them):
  // this holds those paths to the package's own, and every file an isolated sandbox binds for one to
  // a file that is there (after the build).
  test('stand-in: @ars/harness-stand-ins’ launchers, with the files a sandbox binds for them, all there', () => {
    const clis = harnessClis({ HARNESS_CLIS: 'stand-in' });
    for (const harness of ['codex', 'claude-code'] as const) {
      expect(clis[harness]).toEqual({ executablePath: STAND_IN_LAUNCHERS[harness], files: standInFiles(harness), standIn: true, standInTools: null });
      for (const path of standInFiles(harness)) expect(existsSync(path)).toBe(true);
    }
  });
  test('stand-in with a CLI path for one harness: that harness runs the CLI named (a real one), the other its stand-in; `bundled` too', () => {
    const clis = harnessClis({ HARNESS_CLIS: 'stand-in', CLAUDE_CODE_PATH: '/bin/false' });
    expect(clis['claude-code']).toEqual({ executablePath: '/bin/false', files: undefined, standIn: false, standInTools: null });
    expect(clis.codex.standIn).toBe(true);
    expect(harnessClis({ HARNESS_CLIS: 'stand-in', CODEX_PATH: 'bundled' }).codex).toEqual({
      executablePath: undefined,
      files: undefined,
      standIn: false,
      standInTools: null,
    });
  });
});

describe('HARNESS_STAND_IN_TOOLS=on: every real CLI is handed the model stand-in’s tool server, never a stand-in CLI', () => {
  test('the real CLIs get the tool server’s launcher, and every file a sandbox binds for it is there (after the build)', () => {
    const clis = harnessClis({ HARNESS_CLIS: 'real', HARNESS_STAND_IN_TOOLS: 'on' });
    for (const harness of ['codex', 'claude-code'] as const) {
      const tools = clis[harness].standInTools;
      expect(tools?.script).toMatch(/deploy\/local\/model-stand-in\/bin\/mcp-tool-server\.mjs$/);
      for (const path of tools?.files ?? []) expect(existsSync(path)).toBe(true);
      expect(tools?.files).toContain(tools?.script);
    }
  });
  test('a stand-in CLI plays @tool itself: it gets none; off (the default) gives none either', () => {
    expect(harnessClis({ HARNESS_CLIS: 'stand-in', HARNESS_STAND_IN_TOOLS: 'on' }).codex.standInTools).toBeNull();
    expect(harnessClis({ HARNESS_CLIS: 'real' }).codex.standInTools).toBeNull();
  });
  test('ARS_ENV=production refuses HARNESS_STAND_IN_TOOLS=on with one line naming it', () => {
    const base = { CATALOG_URL: 'http://127.0.0.1:8081', INTERNAL_TOKEN: 'x'.repeat(16), ARS_ENV: 'production', SANDBOX_ISOLATION: 'bwrap' };
    const withTools = loadConfig(schema, { ...base, HARNESS_STAND_IN_TOOLS: 'on' });
    expect(() => refuseDevelopmentDefaults(withTools, sandboxesDevelopmentDefaults(withTools))).toThrow(/HARNESS_STAND_IN_TOOLS=on is refused in production/);
  });
});

describe('HARNESS_CLIS values', () => {
  test('any other value is refused, naming the variable', () => {
    expect(() => loadConfig(schema, { CATALOG_URL: 'http://127.0.0.1:8081', INTERNAL_TOKEN: 'x'.repeat(16), HARNESS_CLIS: 'fake' })).toThrow(/HARNESS_CLIS/);
  });
  test('ARS_ENV=production refuses HARNESS_CLIS=stand-in with one line naming it; the real CLIs need no CODEX_PATH there', () => {
    const base = { CATALOG_URL: 'http://127.0.0.1:8081', INTERNAL_TOKEN: 'x'.repeat(16), ARS_ENV: 'production' };
    const standIns = loadConfig(schema, { ...base, HARNESS_CLIS: 'stand-in' });
    expect(() => refuseDevelopmentDefaults(standIns, sandboxesDevelopmentDefaults(standIns))).toThrow(
      /^Invalid configuration: HARNESS_CLIS=stand-in is refused in production[^\n]*$/,
    );
    const real = loadConfig(schema, base);
    expect(() => refuseDevelopmentDefaults(real, sandboxesDevelopmentDefaults(real))).not.toThrow();
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
    const production = loadConfig(schema, { ...base, ARS_ENV: 'production', SANDBOX_ISOLATION: 'none' });
    expect(() => refuseDevelopmentDefaults(production, sandboxesDevelopmentDefaults(production))).toThrow(ConfigError);
    expect(() => refuseDevelopmentDefaults(production, sandboxesDevelopmentDefaults(production))).toThrow(
      /^Invalid configuration: SANDBOX_ISOLATION=none is refused in production[^\n]*$/,
    );
  });
  test('none in development, and bwrap in production, are accepted', () => {
    const development = loadConfig(schema, { ...base, ARS_ENV: 'development', SANDBOX_ISOLATION: 'none' });
    expect(() => refuseDevelopmentDefaults(development, sandboxesDevelopmentDefaults(development))).not.toThrow();
    const production = loadConfig(schema, { ...base, ARS_ENV: 'production' });
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
