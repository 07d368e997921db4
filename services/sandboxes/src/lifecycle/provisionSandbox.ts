// A public sandbox from `requested` to `ready`: the provider makes it (clone, or a snapshot restored),
// the install step runs into install_log, then the dev server (when declared) starts into dev_log and
// `preview_url` is set once it answers HTTP. Every failure ends `failed` with `error` and the reason.
import { recordLimitsInForce } from './limitsEvent.js';
import { isAppError } from '@ars/errors';
import { sandboxPlan, type SandboxPlan } from '../domain/sandboxPlan.js';
import { AllocationError, type AllocatedSandbox } from '../providers/provider.js';
import type { SandboxDoc } from '../store/collections.js';
import { repoWaitingOutCatalogOutage } from './catalogRepo.js';
import { commandEnvironment } from './commandEnvironment.js';
import type { LifecycleDeps } from './deps.js';
import type { LiveSandbox } from './liveSandboxes.js';
import { logSink } from './logSink.js';
import { failSandbox } from './stopSandbox.js';

class ProvisionFailure extends Error {
  constructor(
    message: string,
    readonly decisionCode: string,
  ) {
    super(message);
  }
}

/** Starts provisioning in the background; the create answers at once (202). */
export function startProvisioning(deps: LifecycleDeps, doc: SandboxDoc, restore: { snapshotId: string; file: string } | null = null): void {
  const { sandbox: live, provisioned } = deps.live.add(doc._id, doc.userId);
  const log = deps.logger.child({ sandbox_record_id: doc._id });
  void provision(deps, doc, live, restore)
    .catch(async (error: unknown) => {
      if (live.stopping) return;
      const failure =
        error instanceof ProvisionFailure
          ? error
          : new ProvisionFailure(`the sandbox could not be provisioned: ${error instanceof Error ? error.message : String(error)}`, 'provider_error');
      if (!(error instanceof ProvisionFailure)) log.error({ err: error }, 'provisioning failed unexpectedly');
      await failSandbox(deps, live, failure.message, failure.decisionCode);
    })
    .catch((error: unknown) => log.error({ err: error }, 'the failed provisioning could not be recorded: the sweep will end the sandbox'))
    .finally(provisioned);
}

async function provision(deps: LifecycleDeps, doc: SandboxDoc, live: LiveSandbox, restore: { snapshotId: string; file: string } | null): Promise<void> {
  const signal = live.provisioning.signal;
  await deps.sandboxRecords.event(doc._id, { eventType: 'provisioning', payload: { provider: deps.provider.name } });
  const cloneUrl = await cloneUrlOf(deps, doc, signal);
  let allocated: AllocatedSandbox;
  try {
    allocated = await deps.provider.allocate({
      sandboxRecordId: doc._id,
      runId: null,
      cloneUrl,
      baseBranch: doc.base_branch,
      workingBranch: doc.working_branch,
      rootDirectory: doc.root_directory,
      ...(restore ? { restoreFrom: restore.file } : {}),
      signal,
    });
  } catch (error) {
    if (signal.aborted) return;
    if (error instanceof AllocationError) throw new ProvisionFailure(error.message, error.decisionCode);
    throw error;
  }
  live.allocated = allocated;
  await deps.sandboxRecords.noteProvider(doc._id, allocated);
  await deps.sandboxRecords.transition(
    doc._id,
    { sandboxId: allocated.sandboxId },
    {
      eventType: 'provisioned',
      decisionCode: restore ? 'snapshot_restored' : 'cloned',
      payload: { sandbox_id: allocated.sandboxId, ...(restore ? { snapshot_id: restore.snapshotId } : {}) },
    },
  );
  await recordLimitsInForce(deps.sandboxRecords, deps.provider, doc._id, allocated, null);
  if (signal.aborted) return;

  const plan = await sandboxPlan((path) => readInSandbox(deps, allocated, path, signal));
  await install(deps, live, allocated, plan, credentialsOf(cloneUrl));
  if (signal.aborted) return;
  const ready = await deps.sandboxRecords.transition(doc._id, { status: 'ready' }, { eventType: 'ready' }, ['provisioning']);
  if (!ready || !plan.dev) return;
  await startDevServer(deps, live, allocated, plan.dev);
}

async function cloneUrlOf(deps: LifecycleDeps, doc: SandboxDoc, signal: AbortSignal): Promise<string> {
  try {
    return (await repoWaitingOutCatalogOutage(deps.catalog, doc.userId, doc.repo_id, signal)).clone_url;
  } catch (error) {
    if (isAppError(error) && error.code === 'NOT_FOUND') throw new ProvisionFailure('the repository was not found for this user', 'repo_not_found');
    throw new ProvisionFailure(
      `the repository's clone URL could not be obtained from the catalog: ${error instanceof Error ? error.message : String(error)}`,
      'catalog_unavailable',
    );
  }
}

/** A file of the sandbox's working directory, read through the provider (so it works in a Pod too). */
async function readInSandbox(deps: LifecycleDeps, sandbox: AllocatedSandbox, path: string, signal: AbortSignal): Promise<string | null> {
  const chunks: Buffer[] = [];
  const quoted = `'${path.replace(/'/g, `'\\''`)}'`;
  const result = await deps.provider.exec(sandbox, {
    command: `[ -f ${quoted} ] && cat -- ${quoted}`,
    cwd: sandbox.cwd,
    env: commandEnvironment(deps, sandbox),
    onOutput: (chunk) => chunks.push(chunk),
    signal,
  });
  return result.exitCode === 0 ? Buffer.concat(chunks).toString('utf8') : null;
}

/** The password (token) of a clone URL: it never appears in a log. */
function credentialsOf(url: string): string[] {
  try {
    const parsed = new URL(url);
    return [decodeURIComponent(parsed.password), decodeURIComponent(parsed.username)].filter((value) => value.length >= 6);
  } catch {
    return [];
  }
}

async function install(deps: LifecycleDeps, live: LiveSandbox, sandbox: AllocatedSandbox, plan: SandboxPlan, secrets: string[]): Promise<void> {
  const sink = logSink(deps, live, 'install_log', secrets);
  try {
    for (const problem of plan.problems) sink.append(`ars: ${problem}\n`);
    if (!plan.install) {
      sink.append('ars: no install step (no lock file, no configured install command)\n');
      await deps.sandboxRecords.event(live.recordId, { eventType: 'install_skipped', decisionCode: 'no_install_step' });
      return;
    }
    const { command, source } = plan.install;
    sink.append(`$ ${command}\n`);
    await deps.sandboxRecords.event(live.recordId, { eventType: 'install_started', decisionCode: source, payload: { command } });
    const started = Date.now();
    const timeout = AbortSignal.timeout(deps.settings.installTimeoutMs);
    const result = await deps.provider.exec(sandbox, {
      command,
      cwd: sandbox.cwd,
      env: commandEnvironment(deps, sandbox),
      onOutput: (chunk) => sink.append(chunk),
      signal: AbortSignal.any([live.provisioning.signal, timeout]),
      egress: 'install',
    });
    const durationMs = Date.now() - started;
    if (live.provisioning.signal.aborted) return;
    if (result.exitCode === 0) {
      sink.append(`ars: install finished in ${(durationMs / 1000).toFixed(1)} s\n`);
      await deps.sandboxRecords.event(live.recordId, { eventType: 'install_finished', decisionCode: 'exit_0', payload: { command, exitCode: 0, durationMs } });
      return;
    }
    const timedOut = timeout.aborted;
    const why = timedOut
      ? `ran longer than ${Math.round(deps.settings.installTimeoutMs / 1000)} s`
      : result.exitCode === 127 || result.exitCode === 126
        ? `could not start (exit code ${result.exitCode})`
        : `exited with code ${result.exitCode ?? 'unknown'}`;
    sink.append(`ars: the install step ${why}\n`);
    await deps.sandboxRecords.event(live.recordId, {
      eventType: 'install_failed',
      decisionCode: timedOut ? 'timeout' : result.exitCode === 127 || result.exitCode === 126 ? 'could_not_start' : 'exit_nonzero',
      payload: { command, exitCode: result.exitCode, durationMs },
    });
    throw new ProvisionFailure(`the install step \`${command}\` ${why} (see install_log)`, 'install_failed');
  } finally {
    await sink.close();
  }
}

async function startDevServer(deps: LifecycleDeps, live: LiveSandbox, sandbox: AllocatedSandbox, dev: { command: string; source: string }): Promise<void> {
  const endpoint = await deps.provider.previewEndpoint(sandbox);
  const sink = logSink(deps, live, 'dev_log');
  sink.append(`$ PORT=${endpoint.port} ${dev.command}\n`);
  const controller = new AbortController();
  await deps.sandboxRecords.event(live.recordId, {
    eventType: 'dev_server_started',
    decisionCode: dev.source,
    payload: { command: dev.command, port: endpoint.port },
  });
  const running = deps.provider.exec(sandbox, {
    command: dev.command,
    cwd: sandbox.cwd,
    env: commandEnvironment(deps, sandbox, { PORT: String(endpoint.port), HOST: '0.0.0.0' }),
    onOutput: (chunk) => sink.append(chunk),
    signal: controller.signal,
    egress: 'agent',
    forwardPort: endpoint.port,
  });
  let exited = false;
  const done = running
    .then(async (result) => {
      exited = true;
      await sink.close();
      if (result.aborted) {
        await deps.sandboxRecords.event(live.recordId, { eventType: 'dev_server_stopped', payload: { exitCode: result.exitCode } });
        return;
      }
      await deps.sandboxRecords.transition(
        live.recordId,
        { previewUrl: null },
        { eventType: 'dev_server_exited', decisionCode: result.exitCode === 0 ? 'exit_0' : 'exit_nonzero', payload: { exitCode: result.exitCode } },
        ['ready'],
      );
    })
    .catch((error: unknown) => deps.logger.warn({ err: error, sandbox_record_id: live.recordId }, 'dev server end not recorded'));
  live.dev = { controller, done };

  const answered = await waitForHttp(endpoint.url, deps.settings.devReadyTimeoutMs, () => exited || controller.signal.aborted);
  if (exited || controller.signal.aborted) return;
  if (answered) {
    await deps.sandboxRecords.transition(
      live.recordId,
      { previewUrl: endpoint.url },
      { eventType: 'dev_server_ready', payload: { preview_url: endpoint.url } },
      ['ready'],
    );
  } else {
    await deps.sandboxRecords.event(live.recordId, {
      eventType: 'dev_server_unreachable',
      decisionCode: 'timeout',
      payload: { url: endpoint.url, waitedMs: deps.settings.devReadyTimeoutMs },
    });
  }
}

/** True once the URL answers HTTP at all (any status); false at the deadline or when `gaveUp`. */
async function waitForHttp(url: string, timeoutMs: number, gaveUp: () => boolean): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !gaveUp()) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000), redirect: 'manual' });
      await response.body?.cancel();
      return true;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  return false;
}
