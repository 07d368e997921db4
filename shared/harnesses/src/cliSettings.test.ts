// What each CLI is started with, case by case: the settings the adapters build (pure), and the argv
// and environment the real SDKs turn them into (through an executable that records what it was
// given). No server needed.
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NO_API_KEY_PLACEHOLDER, modelApiRoot } from './adapter.js';
import { ALLOWED_TOOLS, CLAUDE_MAX_RETRIES, claudeCodeEnv } from './claudeCode.js';
import { CODEX_REQUEST_MAX_RETRIES, CODEX_STREAM_MAX_RETRIES, codexEnv, codexRunSettings } from './codexConfig.js';
import { runHarness } from './index.js';
import { harnessModeOf } from './runModes.js';

const base = { cwd: '/work/tree', env: { PATH: '/usr/bin:/bin', HOME: '/home/agent' } };

describe('modelApiRoot', () => {
  test.each([
    ['http://127.0.0.1:4319', 'http://127.0.0.1:4319'],
    ['http://127.0.0.1:4319/', 'http://127.0.0.1:4319'],
    ['http://127.0.0.1:4319/v1', 'http://127.0.0.1:4319'],
    ['https://gateway.example/llm/v1/', 'https://gateway.example/llm'],
  ])('%s → %s', (given, root) => {
    expect(modelApiRoot(given)).toBe(root);
  });

  test.each(['127.0.0.1:4319', 'ftp://host', 'http://host/?q=1', 'not a url'])('%s is refused', (given) => {
    expect(() => modelApiRoot(given)).toThrow(/modelBaseUrl/);
  });
});

describe('codex settings', () => {
  test('a modelBaseUrl: our Responses API provider over plain HTTPS streaming, bounded retries, nothing else phoning out', () => {
    const { config, providerUrl } = codexRunSettings({ ...base, modelBaseUrl: 'http://127.0.0.1:4319' }, harnessModeOf(null));
    expect(providerUrl).toBe('http://127.0.0.1:4319/v1');
    expect(config).toEqual({
      model_provider: 'ars',
      model_providers: {
        ars: {
          name: 'ARS model API',
          base_url: 'http://127.0.0.1:4319/v1',
          wire_api: 'responses',
          env_key: 'CODEX_API_KEY',
          supports_websockets: false,
          request_max_retries: CODEX_REQUEST_MAX_RETRIES,
          stream_max_retries: CODEX_STREAM_MAX_RETRIES,
        },
      },
      features: { unbounded_connection_retries: false, plugins: false, remote_plugin: false, apps: false },
      analytics: { enabled: false },
      check_for_update_on_startup: false,
    });
  });

  test('tool servers: each is mcp_servers.<name> with its command and args and a minute to start (codex gives 10 s); none given, no mcp_servers', () => {
    const toolServers = { standin: { command: '/usr/bin/node', args: ['/srv/mcp-tool-server.mjs', '--prompt-file', '/home/p.txt'] } };
    expect(codexRunSettings({ ...base, toolServers }, harnessModeOf(null)).config.mcp_servers).toEqual({
      standin: { command: '/usr/bin/node', args: ['/srv/mcp-tool-server.mjs', '--prompt-file', '/home/p.txt'], startup_timeout_sec: 60 },
    });
    expect(codexRunSettings(base, harnessModeOf(null)).config).not.toHaveProperty('mcp_servers');
  });

  test('tool servers: a turn waits for one still starting as long as its start may take (codex leaves out one not ready within 1 s); none given, codex’s own', () => {
    const toolServers = { standin: { command: '/usr/bin/node', args: ['/srv/mcp-tool-server.mjs'] } };
    expect(codexRunSettings({ ...base, toolServers }, harnessModeOf(null)).config.mcp_optional_startup_grace_ms).toBe(60_000);
    expect(codexRunSettings(base, harnessModeOf(null)).config).not.toHaveProperty('mcp_optional_startup_grace_ms');
  });

  test('no modelBaseUrl: the same provider pointed at OpenAI (still no websocket), with its organization/project headers', () => {
    const { config, providerUrl } = codexRunSettings(base, harnessModeOf(null));
    expect(providerUrl).toBe('https://api.openai.com/v1');
    expect(config.model_providers).toEqual({
      ars: expect.objectContaining({
        name: 'OpenAI',
        base_url: 'https://api.openai.com/v1',
        supports_websockets: false,
        env_http_headers: { 'OpenAI-Organization': 'OPENAI_ORGANIZATION', 'OpenAI-Project': 'OPENAI_PROJECT' },
      }),
    });
  });

  test.each([
    [false, 'default', 'workspace-write'],
    [false, 'read-only', 'read-only'],
    [false, 'plan', 'read-only'],
    [true, 'default', 'danger-full-access'],
    [true, 'read-only', 'danger-full-access'],
  ])('containedByCaller %p, mode %s → sandbox %s', (containedByCaller, mode, sandboxMode) => {
    const { threadOptions } = codexRunSettings({ ...base, containedByCaller }, harnessModeOf(mode));
    expect(threadOptions).toEqual({ workingDirectory: '/work/tree', skipGitRepoCheck: true, sandboxMode, approvalPolicy: 'never' });
  });

  test('the model, when given, goes to the thread options', () => {
    expect(codexRunSettings({ ...base, model: 'gpt-x' }, harnessModeOf(null)).threadOptions.model).toBe('gpt-x');
  });

  test('CODEX_API_KEY: apiKey, else one in env (CODEX_API_KEY, then OPENAI_API_KEY), else the placeholder', () => {
    expect(codexEnv({ env: base.env, apiKey: 'sk-given' }).CODEX_API_KEY).toBe('sk-given');
    expect(codexEnv({ env: { ...base.env, CODEX_API_KEY: 'sk-env', OPENAI_API_KEY: 'sk-openai' } }).CODEX_API_KEY).toBe('sk-env');
    expect(codexEnv({ env: { ...base.env, OPENAI_API_KEY: 'sk-openai' } }).CODEX_API_KEY).toBe('sk-openai');
    expect(codexEnv({ env: base.env }).CODEX_API_KEY).toBe(NO_API_KEY_PLACEHOLDER);
    expect(codexEnv({ env: base.env })).toEqual({ ...base.env, CODEX_API_KEY: NO_API_KEY_PLACEHOLDER });
  });

  test('a temporary directory that holds CODEX_HOME is moved to $CODEX_HOME/tmp; any other is kept', () => {
    expect(codexEnv({ env: { HOME: '/tmp/run-1/home' } }).TMPDIR).toBe('/tmp/run-1/home/.codex/tmp');
    expect(codexEnv({ env: { HOME: '/srv/h', TMPDIR: '/srv' } }).TMPDIR).toBe('/srv/h/.codex/tmp');
    expect(codexEnv({ env: { HOME: '/tmp/h', CODEX_HOME: '/var/codex' } }).TMPDIR).toBeUndefined();
    expect(codexEnv({ env: { HOME: '/home/agent', TMPDIR: '/var/tmp' } }).TMPDIR).toBe('/var/tmp');
    expect(codexEnv({ env: { HOME: '/tmpfoo/h' } }).TMPDIR).toBeUndefined();
  });
});

describe('claude-code settings', () => {
  test('modelBaseUrl → ANTHROPIC_BASE_URL (its root), non-essential traffic, updates, telemetry and error reports off, bounded retries', () => {
    expect(claudeCodeEnv({ env: base.env, apiKey: 'sk-ant', modelBaseUrl: 'http://127.0.0.1:4319/' })).toEqual({
      ...base.env,
      ANTHROPIC_API_KEY: 'sk-ant',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:4319',
      CLAUDE_CODE_MAX_RETRIES: String(CLAUDE_MAX_RETRIES),
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
    });
  });

  test('no modelBaseUrl: no ANTHROPIC_BASE_URL (Anthropic itself); a retry count the caller set is kept', () => {
    const env = claudeCodeEnv({ env: { ...base.env, CLAUDE_CODE_MAX_RETRIES: '2' }, apiKey: 'sk-ant' });
    expect(env.ANTHROPIC_BASE_URL).toBeUndefined();
    expect(env.CLAUDE_CODE_MAX_RETRIES).toBe('2');
  });

  test('no apiKey: the placeholder, unless env already gives a credential or another provider', () => {
    expect(claudeCodeEnv({ env: base.env }).ANTHROPIC_API_KEY).toBe(NO_API_KEY_PLACEHOLDER);
    expect(claudeCodeEnv({ env: { ...base.env, ANTHROPIC_API_KEY: 'sk-env' } }).ANTHROPIC_API_KEY).toBe('sk-env');
    expect(claudeCodeEnv({ env: { ...base.env, ANTHROPIC_AUTH_TOKEN: 't' } }).ANTHROPIC_API_KEY).toBeUndefined();
    expect(claudeCodeEnv({ env: { ...base.env, CLAUDE_CODE_USE_BEDROCK: '1' } }).ANTHROPIC_API_KEY).toBeUndefined();
  });

  test('ALLOWED_TOOLS names none of the tools Claude Code 2.1.330 no longer has', () => {
    for (const gone of ['LS', 'MultiEdit', 'TodoWrite', 'BashOutput', 'KillShell', 'Task']) expect(ALLOWED_TOOLS).not.toContain(gone);
  });
});

/** An executable that records its argv (NUL-separated) and environment, then exits 3. */
async function recorder(dir: string): Promise<{ path: string; argv: () => Promise<string[]>; env: () => Promise<Record<string, string>> }> {
  const path = join(dir, 'record-cli');
  await writeFile(path, `#!/bin/sh\nprintf '%s\\0' "$@" > '${dir}/argv'\nenv -0 > '${dir}/env'\nexit 3\n`);
  await chmod(path, 0o755);
  const nulList = async (file: string): Promise<string[]> => (await readFile(join(dir, file), 'utf8')).split('\0').slice(0, -1);
  return {
    path,
    argv: () => nulList('argv'),
    env: async () => Object.fromEntries((await nulList('env')).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])),
  };
}

describe('what the real SDKs start the CLIs with', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ars-cli-argv-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('codex: every setting as a --config TOML override, approval_policy a TOML string, no key on argv', async () => {
    const cli = await recorder(dir);
    const result = await runHarness({
      harness: 'codex',
      prompt: 'p',
      cwd: dir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: join(dir, 'home') },
      modelBaseUrl: 'http://127.0.0.1:4319',
      containedByCaller: true,
      signal: new AbortController().signal,
      executablePath: cli.path,
      onEvent: async () => undefined,
    });
    expect(result.status).toBe('failed');
    const argv = await cli.argv();
    const configs = argv.flatMap((arg, i) => (argv[i - 1] === '--config' ? [arg] : []));
    expect(configs).toEqual([
      'model_provider="ars"',
      'model_providers.ars.name="ARS model API"',
      'model_providers.ars.base_url="http://127.0.0.1:4319/v1"',
      'model_providers.ars.wire_api="responses"',
      'model_providers.ars.env_key="CODEX_API_KEY"',
      'model_providers.ars.supports_websockets=false',
      `model_providers.ars.request_max_retries=${CODEX_REQUEST_MAX_RETRIES}`,
      `model_providers.ars.stream_max_retries=${CODEX_STREAM_MAX_RETRIES}`,
      'features.unbounded_connection_retries=false',
      'features.plugins=false',
      'features.remote_plugin=false',
      'features.apps=false',
      'analytics.enabled=false',
      'check_for_update_on_startup=false',
      'approval_policy="never"',
    ]);
    expect(argv.slice(0, 2)).toEqual(['exec', '--experimental-json']);
    expect(argv.join(' ')).toContain(`--sandbox danger-full-access --cd ${dir} --skip-git-repo-check`);
    const env = await cli.env();
    expect(env.CODEX_API_KEY).toBe(NO_API_KEY_PLACEHOLDER);
    expect(argv.join(' ')).not.toContain(NO_API_KEY_PLACEHOLDER);
  });

  test('claude-code: the allowed tools and the provider environment reach the CLI', async () => {
    const cli = await recorder(dir);
    const result = await runHarness({
      harness: 'claude-code',
      prompt: 'p',
      cwd: dir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: join(dir, 'home') },
      apiKey: 'sk-ant-test',
      modelBaseUrl: 'http://127.0.0.1:4319',
      signal: new AbortController().signal,
      executablePath: cli.path,
      onEvent: async () => undefined,
    });
    expect(result.status).toBe('failed');
    const argv = await cli.argv();
    expect(argv).toContain(`--allowedTools=${ALLOWED_TOOLS.join(',')}`);
    expect(argv).toContain('--permission-mode=acceptEdits');
    const env = await cli.env();
    expect(env).toMatchObject({
      ANTHROPIC_API_KEY: 'sk-ant-test',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:4319',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
    });
    expect(argv.join(' ')).not.toContain('sk-ant-test');
  });
});
