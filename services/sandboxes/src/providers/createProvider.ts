import { ConfigError, environmentOf, type EnvSource, type Environment } from '@ars/config';
import { kubernetesSettings, SettingsError } from './kubernetes/settings.js';
import { IsolationUnavailable, prepareIsolation, type LocalIsolation } from './local/localIsolation.js';
import { FORWARDER_FILES, LocalProvider } from './local/localProvider.js';
import { newInstanceName } from './local/limits/cgroups.js';
import type { SandboxEgressSettings } from '../egress/sandboxEgress.js';
import { EgressAllowError, EMPTY_EGRESS_ALLOW, parseEgressAllow, type EgressAllowList } from '../domain/egressPolicy.js';
import { prepareSandboxLimits, type SandboxLimits } from './local/limits/limits.js';
import type { SandboxProvider } from './provider.js';
import { ModelGateway, type ModelUpstreams } from '../modelAccess/modelGateway.js';

export type ConfiguredProvider = SandboxProvider & { close?: () => Promise<void>; listen?: () => Promise<{ url: string }> };

interface ProviderConfig {
  SANDBOX_PROVIDER: 'local' | 'kubernetes';
  SANDBOX_ROOT: string;
  SANDBOX_ISOLATION: 'bwrap' | 'none';
  OPENAI_BASE_URL: string;
  ANTHROPIC_BASE_URL: string;
  CODEX_API_KEY?: string | undefined;
  ANTHROPIC_API_KEY?: string | undefined;
  RUN_TOKEN_BUDGET?: number | undefined;
  SANDBOX_MEMORY_MB: number;
  SANDBOX_PIDS: number;
  SANDBOX_CPUS: string;
  SANDBOX_DISK_MB: number;
  SANDBOX_WARM_POOL?: number;
  SANDBOX_UID?: number;
  SANDBOX_EGRESS_ALLOW?: string | undefined;
  SANDBOX_INSTALL_EGRESS_ALLOW: string;
  NODE_ENV: Environment;
  ARS_ENV?: Environment | undefined;
}

/** What the local provider prepares before the service starts: bubblewrap, and each sandbox's resource limits. */
export interface LocalPreparation {
  isolation: LocalIsolation | null;
  limits: SandboxLimits | null;
  /** What sandboxes may reach outside (SANDBOX_EGRESS_ALLOW, SANDBOX_INSTALL_EGRESS_ALLOW), each decision reported. */
  egress?: SandboxEgressSettings;
  /** Told of a sandbox the warm pool could not prepare or release in the background. */
  onBackgroundError?: (error: unknown) => void;
}

/** The egress allowlists of the configuration; a malformed entry is a configuration error naming it. */
export function egressAllowLists(config: Pick<ProviderConfig, 'SANDBOX_EGRESS_ALLOW' | 'SANDBOX_INSTALL_EGRESS_ALLOW'>): {
  agent: EgressAllowList;
  install: EgressAllowList;
} {
  const parse = (name: string, text: string | undefined): EgressAllowList => {
    try {
      return text === undefined ? EMPTY_EGRESS_ALLOW : parseEgressAllow(text);
    } catch (error) {
      if (error instanceof EgressAllowError) throw new ConfigError([`${name}: ${error.message}`]);
      throw error;
    }
  };
  return {
    agent: parse('SANDBOX_EGRESS_ALLOW', config.SANDBOX_EGRESS_ALLOW),
    install: parse('SANDBOX_INSTALL_EGRESS_ALLOW', config.SANDBOX_INSTALL_EGRESS_ALLOW),
  };
}

/**
 * The local provider's isolation (`SANDBOX_ISOLATION=bwrap`), tried for real; null without one (the
 * Kubernetes provider, or `none`). Unavailable, it is a configuration error: one line, the service does not start.
 */
export async function localIsolation(config: Pick<ProviderConfig, 'SANDBOX_PROVIDER' | 'SANDBOX_ISOLATION' | 'SANDBOX_UID'>): Promise<LocalIsolation | null> {
  if (config.SANDBOX_PROVIDER !== 'local' || config.SANDBOX_ISOLATION === 'none') return null;
  try {
    return await prepareIsolation({ sandboxUid: config.SANDBOX_UID, probeFiles: FORWARDER_FILES });
  } catch (error) {
    if (!(error instanceof IsolationUnavailable)) throw error;
    throw new ConfigError([
      `SANDBOX_ISOLATION=bwrap cannot isolate sandboxes here: ${error.message} (install it, or set SANDBOX_ISOLATION=none for development only)`,
    ]);
  }
}

/**
 * Each local sandbox's limits (SANDBOX_MEMORY_MB, SANDBOX_PIDS, SANDBOX_CPUS, SANDBOX_DISK_MB; 0: off),
 * prepared with the isolation (cgroups nested under the service's own, a size-limited disk each).
 * In production, a limit set that this machine cannot enforce refuses the start; in development the
 * start-up log says which are enforced and how.
 */
export async function localSandboxLimits(config: ProviderConfig, isolation: LocalIsolation | null): Promise<SandboxLimits | null> {
  if (config.SANDBOX_PROVIDER !== 'local' || config.SANDBOX_ISOLATION === 'none') return null;
  const positive = (value: number): number | null => (value > 0 ? value : null);
  const limits = await prepareSandboxLimits(
    {
      memoryMb: positive(config.SANDBOX_MEMORY_MB),
      pids: positive(config.SANDBOX_PIDS),
      cpus: positive(Number(config.SANDBOX_CPUS)),
      diskMb: positive(config.SANDBOX_DISK_MB),
    },
    {
      instance: await newInstanceName(),
      sandboxRoot: config.SANDBOX_ROOT,
      owner: isolation?.user ?? { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 },
    },
  );
  if (limits.support.refusal !== null && environmentOf(config) === 'production') {
    await limits.close();
    throw new ConfigError([`the sandboxes' limits cannot be enforced here: ${limits.support.refusal} (production refuses to run agents without them)`]);
  }
  return limits;
}

function modelUpstreamsOf(config: Pick<ProviderConfig, 'OPENAI_BASE_URL' | 'ANTHROPIC_BASE_URL'>): ModelUpstreams {
  return { responses: config.OPENAI_BASE_URL, messages: config.ANTHROPIC_BASE_URL };
}

/** `SANDBOX_PROVIDER`: `local` (a directory per sandbox under SANDBOX_ROOT) or `kubernetes` (a Pod per sandbox, K8S_*). */
export async function createProvider(config: ProviderConfig, env: EnvSource, local: LocalPreparation): Promise<ConfiguredProvider> {
  if (config.SANDBOX_PROVIDER === 'local') {
    const modelGateway = new ModelGateway({
      upstreams: modelUpstreamsOf(config),
      providerKeys: { responses: config.CODEX_API_KEY, messages: config.ANTHROPIC_API_KEY },
      runTokenBudget: config.RUN_TOKEN_BUDGET ?? null,
    });
    return new LocalProvider(config.SANDBOX_ROOT, {
      isolation: local.isolation,
      limits: local.limits,
      modelGateway,
      ...(local.egress ? { egress: local.egress } : {}),
      warmPool: config.SANDBOX_WARM_POOL ?? 0,
      ...(local.onBackgroundError ? { onBackgroundError: local.onBackgroundError } : {}),
    });
  }
  try {
    const settings = kubernetesSettings(env);
    // Loaded only here: @kubernetes/client-node is some 800 modules, about a second of CPU at every
    // start of a service that runs its sandboxes locally and never needs it.
    const { KubernetesProvider } = await import('./kubernetes/kubernetesProvider.js');
    // A Pod's one way to a model: the company's keys stay in this service, each run's CLI holds a door's credential bound to its Pod's IP.
    const modelGateway = new ModelGateway({
      upstreams: modelUpstreamsOf(config),
      providerKeys: { responses: config.CODEX_API_KEY, messages: config.ANTHROPIC_API_KEY },
      runTokenBudget: config.RUN_TOKEN_BUDGET ?? null,
    });
    // …and its one way to anything else: grants of the egress proxy, bound to its Pod's IP, one per phase.
    return new KubernetesProvider(settings, { modelGateway, ...(local.egress ? { egress: local.egress } : {}) });
  } catch (error) {
    // One line naming the variable, like every other configuration error.
    if (error instanceof SettingsError) throw new Error(`Invalid configuration: ${error.message}`);
    throw error;
  }
}
