import type { EnvSource } from '@ars/config';
import { KubernetesProvider } from './kubernetes/kubernetesProvider.js';
import { kubernetesSettings, SettingsError } from './kubernetes/settings.js';
import { LocalProvider } from './local.js';
import type { SandboxProvider } from './provider.js';

export type ConfiguredProvider = SandboxProvider & { close?: () => Promise<void> };

/** `SANDBOX_PROVIDER`: `local` (a directory per sandbox under SANDBOX_ROOT) or `kubernetes` (a Pod per sandbox, K8S_*). */
export function createProvider(config: { SANDBOX_PROVIDER: 'local' | 'kubernetes'; SANDBOX_ROOT: string }, env: EnvSource): ConfiguredProvider {
  if (config.SANDBOX_PROVIDER === 'local') return new LocalProvider(config.SANDBOX_ROOT);
  try {
    return new KubernetesProvider(kubernetesSettings(env));
  } catch (error) {
    // One line naming the variable, like every other configuration error.
    if (error instanceof SettingsError) throw new Error(`Invalid configuration: ${error.message}`);
    throw error;
  }
}
