import { harnessEnvironment } from '../domain/environment.js';
import type { AllocatedSandbox } from '../providers/provider.js';
import type { LifecycleDeps } from './deps.js';

/** Install and dev commands get the harness's scrubbed environment (never the service's), non-interactive. */
export function commandEnvironment(deps: LifecycleDeps, sandbox: AllocatedSandbox, extra: Record<string, string> = {}): Record<string, string> {
  return { ...harnessEnvironment({ path: deps.settings.commandPath, home: sandbox.home }), CI: '1', ...extra };
}
