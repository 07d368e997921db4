import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, env, loadConfig, type ConfigOf, type DevelopmentDefault, type EnvSource } from '@ars/config';
import { SHUTDOWN_CLOSING_RESERVE_MS, serviceSchemaOf, type ConfigSchemaOf, type ServiceConfigurationDefinition } from '@ars/service/configuration';

export const SANDBOXES_PORT = 8083;

/** The sandboxes service's own variables, beside the common ones of every service. */
export const sandboxesConfigSchema = {
  /** The cancel route is internal: without the shared token it could be called by anyone. */
  INTERNAL_TOKEN: env.string({ secret: true, minLength: 16, describe: 'a string of at least 16 characters' }),
  /** The catalog: where a run's repository (and its clone URL) comes from. */
  CATALOG_URL: env.url({ protocols: ['http', 'https'] }),
  /** Where the local provider makes one working directory per sandbox. */
  SANDBOX_ROOT: env.string({ default: join(tmpdir(), 'ars-sandboxes') }),
  /**
   * Which CLIs run a run's harness: `real` (the Codex and Claude Code CLIs, calling a model through
   * the model proxy) or `stand-in` (the scripted stand-ins of deploy/local/harness-stand-ins, which
   * call no model: the fast part of the test suite; refused in production).
   */
  HARNESS_CLIS: env.oneOf(['real', 'stand-in'] as const, { default: 'real' }),
  /**
   * `on`: every run of a real CLI is handed the model stand-in's MCP tool server
   * (deploy/local/model-stand-in), which offers the tools the prompt's `@tool` lines name, so that
   * `@tool` plays under the real CLIs as under the stand-ins. Development and tests only (refused in
   * production), and the local provider only: a Pod has no such server.
   */
  HARNESS_STAND_IN_TOOLS: env.oneOf(['on', 'off'] as const, { default: 'off' }),
  /** The Codex CLI: a path (whatever HARNESS_CLIS says), `bundled` (the SDK's own CLI), or unset (HARNESS_CLIS decides). */
  CODEX_PATH: env.string({ optional: true }),
  /** The Claude Code CLI: a path (whatever HARNESS_CLIS says), `bundled` (the SDK's own CLI), or unset (HARNESS_CLIS decides). */
  CLAUDE_CODE_PATH: env.string({ optional: true }),
  /**
   * The company's provider keys. The model gateway (src/modelAccess) puts them on the requests it
   * forwards; a sandboxed CLI never holds them, only its run's own credential.
   */
  CODEX_API_KEY: env.string({ optional: true, secret: true }),
  ANTHROPIC_API_KEY: env.string({ optional: true, secret: true }),
  /** A run's input and output tokens (as the provider reports them) past which the run ends `failed`; unset: no budget. */
  RUN_TOKEN_BUDGET: env.integer({ min: 1, max: Number.MAX_SAFE_INTEGER, optional: true }),
  /**
   * Where a codex harness's model calls go: the OpenAI Responses API base, `/v1` included. A sandboxed
   * CLI reaches it only through the service's model gateway (src/modelAccess); the development stack
   * points it at the model stand-in.
   */
  OPENAI_BASE_URL: env.url({ protocols: ['http', 'https'], default: 'https://api.openai.com/v1' }),
  /** Where a claude-code harness's model calls go: the Anthropic Messages API base, without `/v1`. */
  ANTHROPIC_BASE_URL: env.url({ protocols: ['http', 'https'], default: 'https://api.anthropic.com' }),
  /** How often a live session's record is marked alive. */
  SESSION_HEARTBEAT_MS: env.integer({ min: 100, max: 600_000, default: 5_000 }),
  /** A session whose heartbeat is older than this is ended as lost (its process stopped). */
  SESSION_LOST_AFTER_MS: env.integer({ min: 500, max: 3_600_000, default: 20_000 }),
  /**
   * On SIGTERM, how long the runs this instance is running may go on to finish on their own before
   * the rest are aborted (failed `sandbox_lost`). 0: aborted at once. Keep it under
   * SHUTDOWN_TIMEOUT_MS, and the Pod's terminationGracePeriodSeconds over both.
   */
  SANDBOX_DRAIN_MS: env.integer({ min: 0, max: 24 * 3_600_000, default: 0 }),
  /** How long a session keeps retrying to publish one message before it ends failed. */
  PUBLISH_DEADLINE_MS: env.integer({ min: 100, max: 3_600_000, default: 60_000 }),
  /**
   * How the local provider locks commands and harnesses in: `bwrap` (bubblewrap namespaces, no network
   * but each sandbox's doors; the service refuses to start where it is unavailable) or `none` (plain local
   * processes that see and reach everything the service does: development only, refused in production).
   */
  SANDBOX_ISOLATION: env.oneOf(['bwrap', 'none'] as const, { default: 'bwrap' }),
  /**
   * Each local sandbox's limits, every process of it together (install steps, dev servers, the
   * agent): memory in MiB (cgroup memory, swap included), tasks (processes and threads: cgroup
   * pids), CPUs' worth of time (cgroup CPU quota, fractional allowed), and the disk its tree and
   * temporary directories may fill in MiB (a size-limited file system of its own). 0: not limited.
   * In production every one set must be enforceable here, or the service refuses to start.
   */
  /**
   * The unprivileged host uid (and gid) every process of a local sandbox runs as, when the service
   * runs as root: never root, whose namespace escape would be the machine's. It owns nothing else on
   * the machine; every folder above SANDBOX_ROOT, node and the harness CLIs must let it through.
   */
  SANDBOX_UID: env.integer({ min: 1, max: 4_294_967_294, default: 2_000_000 }),
  SANDBOX_MEMORY_MB: env.integer({ min: 0, max: 1_048_576, default: 2_048 }),
  SANDBOX_PIDS: env.integer({ min: 0, max: 4_194_304, default: 512 }),
  SANDBOX_CPUS: env.string({ pattern: '^[0-9]{1,4}(\\.[0-9]{1,3})?$', describe: 'a number of CPUs, e.g. 1 or 0.5 (0: not limited)', default: '1' }),
  SANDBOX_DISK_MB: env.integer({ min: 0, max: 16 * 1_048_576, default: 5_120 }),
  /**
   * Local sandboxes kept prepared ahead of need: each an empty directory with its limits in force
   * (cgroups made, disk mounted), taken by one run's allocation, so a run waits only for its checkout.
   * 0: each allocation prepares its own.
   */
  SANDBOX_WARM_POOL: env.integer({ min: 0, max: 32, default: 2 }),
  /**
   * What a local sandbox may reach outside, through its own egress proxy (src/egress): host names and
   * `*.suffix` (ports 443 and 80 unless `:port`), presets `@npm`, `@pypi`, `@github`, `@gitlab`,
   * `@crates`, `@go`, `@rubygems`, `@maven`. Loopback, private, link-local (metadata) and the host's
   * own addresses are refused whatever the list says. SANDBOX_EGRESS_ALLOW: the agent's turn and dev
   * servers (unset: nothing but the model gateway); SANDBOX_INSTALL_EGRESS_ALLOW: install steps.
   */
  SANDBOX_EGRESS_ALLOW: env.string({ optional: true, describe: 'host names, *.suffix and @presets separated by commas or spaces' }),
  SANDBOX_INSTALL_EGRESS_ALLOW: env.string({
    default: '@npm @pypi @crates @go @rubygems @maven @github @gitlab',
    describe: 'host names, *.suffix and @presets separated by commas or spaces',
  }),
  /** Where sandboxes live: a local directory per sandbox, or a Kubernetes Pod per sandbox (K8S_* settings). */
  SANDBOX_PROVIDER: env.oneOf(['local', 'kubernetes'] as const, { default: 'local' }),
  /** A ready public sandbox unused for this long is stopped (and snapshotted). */
  SANDBOX_IDLE_TIMEOUT_MS: env.integer({ min: 1_000, max: 7 * 24 * 3_600_000, default: 1_800_000 }),
  /** The install step's limit (a longer one fails the sandbox). */
  SANDBOX_INSTALL_TIMEOUT_MS: env.integer({ min: 1_000, max: 24 * 3_600_000, default: 900_000 }),
  /** How long a dev server has to answer HTTP before `preview_url` is given up on. */
  SANDBOX_DEV_READY_TIMEOUT_MS: env.integer({ min: 500, max: 3_600_000, default: 120_000 }),
  /** Each of install_log and dev_log keeps at most this many bytes (the start and the latest output). */
  SANDBOX_LOG_CAP_BYTES: env.integer({ min: 4_096, max: 16 * 1024 * 1024, default: 256 * 1024 }),
  /** How often a growing log is written to the store (readers see it grow at this pace). */
  SANDBOX_LOG_FLUSH_MS: env.integer({ min: 50, max: 60_000, default: 500 }),
  /** PATH of the harness and of install/dev commands in a sandbox; default: the service's own (local) or the image's usual one (kubernetes). */
  SANDBOX_COMMAND_PATH: env.string({ optional: true }),
  /** Where snapshot archives are kept; default `<SANDBOX_ROOT>/.snapshots`. */
  SNAPSHOT_ROOT: env.string({ optional: true }),
  /** Run sessions (allocating or running) one instance runs at once; requests over it wait in its queue, oldest first. */
  SANDBOX_MAX_SESSIONS: env.integer({ min: 1, max: 1_000, default: 8 }),
  /** Live sandboxes (provisioning or ready, public and runs' alike) one user may hold; a create over it is 409, a run waits. */
  SANDBOX_MAX_LIVE_PER_USER: env.integer({ min: 1, max: 10_000, default: 20 }),
  /** Lifecycle events kept per sandbox (the newest) and returned by the logs route. */
  SANDBOX_LIFECYCLE_EVENTS_MAX: env.integer({ min: 5, max: 10_000, default: 200 }),
  /** A snapshot older than this is deleted (archive and record) by the keeper's pass. */
  SNAPSHOT_RETENTION_MS: env.integer({ min: 1_000, max: 3_650 * 24 * 3_600_000, default: 7 * 24 * 3_600_000 }),
  /** Snapshots kept per user: beyond it, the oldest are deleted first. */
  SNAPSHOT_MAX_PER_USER: env.integer({ min: 1, max: 100_000, default: 50 }),
  /** Harness limit when a request carries no `timeoutMs` (runs always sends one). */
  DEFAULT_RUN_TIMEOUT_MS: env.integer({ min: 1, default: 1_800_000 }),
};

// ---- Production refusals (issue 11: production refuses development defaults) ----------------------
// Kept apart from the variables above: the rule itself lives in @ars/config (`productionProblems`).

/** What the production refusals read of the configuration. */
export interface SandboxesProductionInput {
  HARNESS_CLIS: 'real' | 'stand-in';
  HARNESS_STAND_IN_TOOLS: 'on' | 'off';
  SANDBOX_ISOLATION: 'bwrap' | 'none';
}

/**
 * The sandboxes service's development defaults, refused in production (beside the internal token of
 * every service): the stand-in CLIs, scripted agents that report `success` without doing the work;
 * and `SANDBOX_ISOLATION=none`.
 */
export function sandboxesDevelopmentDefaults(config: SandboxesProductionInput): DevelopmentDefault[] {
  return [
    {
      inUse: config.HARNESS_CLIS === 'stand-in',
      problem: 'HARNESS_CLIS=stand-in is refused in production (scripted stand-ins, not agents, would run every run)',
    },
    {
      inUse: config.HARNESS_STAND_IN_TOOLS === 'on',
      problem: 'HARNESS_STAND_IN_TOOLS=on is refused in production (every run would be handed a scripted development tool server)',
    },
    // Agents would run unisolated, with the services' files and network in reach.
    { inUse: config.SANDBOX_ISOLATION === 'none', problem: 'SANDBOX_ISOLATION=none is refused in production (agents would run unisolated)' },
  ];
}
// ---- end of production refusals -----------------------------------------------------------------

/** What the drain leaves of a shutdown's hooks' time: the sandboxes' stops, the aborts of what is still live and their reports. */
export const DRAIN_LEAVES_MS = 3_000;

/**
 * The drain runs inside the shutdown's own limit, with 5 s left: DRAIN_LEAVES_MS to abort and report
 * what is still live, and what every service keeps for closing its connections.
 */
export function checkDrainFitsShutdown(config: { SANDBOX_DRAIN_MS: number; SHUTDOWN_TIMEOUT_MS: number }): void {
  const left = DRAIN_LEAVES_MS + SHUTDOWN_CLOSING_RESERVE_MS;
  if (config.SANDBOX_DRAIN_MS > 0 && config.SANDBOX_DRAIN_MS + left > config.SHUTDOWN_TIMEOUT_MS) {
    throw new ConfigError([`SANDBOX_DRAIN_MS=${config.SANDBOX_DRAIN_MS} must leave ${left} ms of SHUTDOWN_TIMEOUT_MS=${config.SHUTDOWN_TIMEOUT_MS}`]);
  }
}

/** What sandboxes declares of its configuration (runService reads it; `main.ts` checks it before the service's modules load). */
export const sandboxesConfiguration: ServiceConfigurationDefinition<typeof sandboxesConfigSchema> = {
  name: 'sandboxes',
  port: SANDBOXES_PORT,
  requireMongo: true,
  requireBus: true,
  configSchema: sandboxesConfigSchema,
  developmentDefaults: sandboxesDevelopmentDefaults,
};

/** The whole configuration, read before anything starts; the drain checked against the shutdown. Throws ConfigError. */
export function loadSandboxesConfig(source: EnvSource): ConfigOf<ConfigSchemaOf<typeof sandboxesConfigSchema>> {
  const config = loadConfig(serviceSchemaOf(sandboxesConfiguration), source);
  checkDrainFitsShutdown(config);
  return config;
}
