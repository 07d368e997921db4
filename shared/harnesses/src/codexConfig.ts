// What the codex adapter hands `@openai/codex-sdk` for one run: the `--config` overrides, the thread
// options and the CLI's environment. Pure (no I/O), so the tests hold every case to the table in
// README.md ("Real CLIs"). Checked against codex-cli 0.163.0; recheck when it moves.
import { isAbsolute, join, relative, sep } from 'node:path';
import type { CodexOptions, ThreadOptions } from '@openai/codex-sdk';
import { NO_API_KEY_PLACEHOLDER, modelApiRoot, type RunHarnessOptions } from './adapter.js';
import type { HarnessMode } from './runModes.js';

/** The id of the model provider we define (`model_provider`, `model_providers.<id>`). */
export const CODEX_PROVIDER_ID = 'ars';

/** Where codex goes when no `modelBaseUrl` is given: OpenAI's own Responses API. */
export const OPENAI_API_BASE = 'https://api.openai.com/v1';

/**
 * Bounded retries: codex retries each HTTP request `request_max_retries` times and the whole
 * streamed request `stream_max_retries` times, with backoff (200 ms doubling). With 3 and 4 an
 * unreachable provider ends the turn in about 10 s (measured: 25 s with codex's defaults 4 and 5),
 * while a provider's passing hiccup still gets retried.
 */
export const CODEX_REQUEST_MAX_RETRIES = 3;
export const CODEX_STREAM_MAX_RETRIES = 4;

/**
 * How long codex waits for each tool server to answer MCP's `initialize` (its `startup_timeout_sec`).
 * Codex's own default is 10 s, and a server that misses it is left out with a warning while the run
 * goes on without its tools. A Node tool server started inside the sandbox on a busy node has taken
 * longer than that (a fresh CI run's `@tool` run ended with no tool call), so it gets a minute, as
 * Claude Code's `MCP_TIMEOUT` default (30 s) is of the same order.
 */
export const CODEX_TOOL_SERVER_STARTUP_TIMEOUT_S = 60;

/**
 * How long a turn waits for a tool server that has not started yet (codex's
 * `mcp_optional_startup_grace_ms`). Codex's own is one second: a server still starting then is left
 * out of the turn's tools without a word, and the agent runs without them. A Node tool server
 * started beside a busy test run missed it (realClis: codex's `@tool` run ended with no tool call,
 * its MCP server never offered). So the turn waits for each server as long as its start-up may take.
 */
export const CODEX_TOOL_SERVER_STARTUP_GRACE_MS = CODEX_TOOL_SERVER_STARTUP_TIMEOUT_S * 1000;

/** A TOML value of a `--config` override, as the SDK's `config` option takes them. */
type ConfigValue = string | number | boolean | ConfigValue[] | { [key: string]: ConfigValue };
export type CodexConfig = { [key: string]: ConfigValue };

export interface CodexRunSettings {
  /** `new Codex({config, env, …})`: the SDK turns `config` into `--config key=value` (TOML) flags. */
  config: CodexConfig;
  /** The CLI's whole environment. */
  env: Record<string, string>;
  threadOptions: ThreadOptions;
  /** The Responses API base codex is sent to (`model_providers.<id>.base_url`). */
  providerUrl: string;
}

/**
 * The settings of one codex run.
 *
 * - The model provider is always one we define, never codex's built-in `openai`: the built-in one
 *   first tries a websocket five times (~6 s) before falling back to HTTPS, and ignores
 *   `OPENAI_BASE_URL`. Ours speaks the Responses API over plain HTTPS streaming
 *   (`supports_websockets=false`) to `modelBaseUrl` + `/v1`, else to api.openai.com.
 * - `unbounded_connection_retries` off: with it an unreachable provider is retried forever
 *   ("Reconnecting... waiting for network").
 * - plugins, remote plugins, apps, analytics and the update check off: otherwise every run runs
 *   `git ls-remote https://github.com/openai/plugins.git` and looks up chatgpt.com,
 *   api.github.com and ab.chatgpt.com. With these off, the model's requests are its only traffic.
 * - the run's tool servers as `mcp_servers.<name>` (command and args; codex starts them with its own
 *   small environment), each given CODEX_TOOL_SERVER_STARTUP_TIMEOUT_S to start.
 */
export function codexRunSettings(
  options: Pick<RunHarnessOptions, 'cwd' | 'env' | 'apiKey' | 'model' | 'modelBaseUrl' | 'containedByCaller' | 'toolServers'>,
  mode: HarnessMode,
): CodexRunSettings {
  const custom = options.modelBaseUrl !== undefined;
  const providerUrl = options.modelBaseUrl !== undefined ? `${modelApiRoot(options.modelBaseUrl)}/v1` : OPENAI_API_BASE;
  const provider: { [key: string]: ConfigValue } = {
    name: custom ? 'ARS model API' : 'OpenAI',
    base_url: providerUrl,
    wire_api: 'responses',
    env_key: 'CODEX_API_KEY',
    supports_websockets: false,
    request_max_retries: CODEX_REQUEST_MAX_RETRIES,
    stream_max_retries: CODEX_STREAM_MAX_RETRIES,
  };
  // The built-in OpenAI provider sends these headers when their variables are set; ours keeps that.
  if (!custom) provider.env_http_headers = { 'OpenAI-Organization': 'OPENAI_ORGANIZATION', 'OpenAI-Project': 'OPENAI_PROJECT' };
  const config: CodexConfig = {
    model_provider: CODEX_PROVIDER_ID,
    model_providers: { [CODEX_PROVIDER_ID]: provider },
    features: { unbounded_connection_retries: false, plugins: false, remote_plugin: false, apps: false },
    analytics: { enabled: false },
    check_for_update_on_startup: false,
  };
  const toolServers = Object.entries(options.toolServers ?? {});
  if (toolServers.length > 0) {
    config.mcp_optional_startup_grace_ms = CODEX_TOOL_SERVER_STARTUP_GRACE_MS;
    config.mcp_servers = Object.fromEntries(
      toolServers.map(([name, server]) => [name, { command: server.command, args: server.args, startup_timeout_sec: CODEX_TOOL_SERVER_STARTUP_TIMEOUT_S }]),
    );
  }
  return {
    config,
    providerUrl,
    env: codexEnv(options),
    threadOptions: {
      workingDirectory: options.cwd,
      skipGitRepoCheck: true,
      // Inside our bubblewrap codex's own (bwrap again) cannot map its user namespace ("bwrap:
      // setting up uid map: Operation not permitted"): every command would fail. Our sandbox is the
      // boundary there, and our read-only mount of the tree enforces a read-only mode.
      sandboxMode: options.containedByCaller ? 'danger-full-access' : mode.readOnly ? 'read-only' : 'workspace-write',
      // The SDK passes it as the TOML string `approval_policy="never"`.
      approvalPolicy: 'never',
      ...(options.model ? { model: options.model } : {}),
    },
  };
}

/**
 * The CLI's environment: the caller's, plus
 * - `CODEX_API_KEY` (our provider's `env_key`): `apiKey`, else one already in env
 *   (`CODEX_API_KEY`, then `OPENAI_API_KEY`, which our provider would otherwise ignore), else the
 *   placeholder: codex refuses to start when its provider's variable is missing;
 * - `TMPDIR` moved to `$CODEX_HOME/tmp` when the temporary directory (default `/tmp`) holds
 *   CODEX_HOME: codex then refuses to create its helper binaries there, and every command it
 *   sandboxes itself fails (`bwrap: execvp codex-linux-sandbox`). Codex creates that folder itself.
 */
export function codexEnv(options: Pick<RunHarnessOptions, 'env' | 'apiKey'>): Record<string, string> {
  const env: Record<string, string> = { ...options.env };
  env.CODEX_API_KEY = options.apiKey || env.CODEX_API_KEY || env.OPENAI_API_KEY || NO_API_KEY_PLACEHOLDER;
  const home = codexHome(env);
  const tmp = env.TMPDIR || '/tmp';
  if (home !== null && isAbsolute(tmp) && isInside(tmp, home)) env.TMPDIR = join(home, 'tmp');
  return env;
}

/** `$CODEX_HOME`, else `$HOME/.codex`; null when neither is an absolute path. */
export function codexHome(env: Record<string, string>): string | null {
  if (env.CODEX_HOME && isAbsolute(env.CODEX_HOME)) return env.CODEX_HOME;
  if (env.HOME && isAbsolute(env.HOME)) return join(env.HOME, '.codex');
  return null;
}

function isInside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** The SDK's constructor options for these settings. */
export function codexOptions(settings: CodexRunSettings, executablePath: string | undefined): CodexOptions {
  // No `apiKey` here: the SDK would set CODEX_API_KEY itself; codexEnv already has.
  return { ...(executablePath ? { codexPathOverride: executablePath } : {}), env: settings.env, config: settings.config };
}
