// The Kubernetes provider behind the service's provider seam: one Pod per sandbox (an init container
// clones), every command and the harness CLI exec'ed into it. Paths in its sandboxes are in-Pod paths
// (`dir` is null); a record's `sandbox_id` (the Pod's name) is enough to release it after a restart.
// A CLI in a Pod reaches its model only through this service's model gateway: a door on the
// gateway's shared listener, bound to the Pod's IP, whose credential is all the Pod holds.
import { randomBytes, randomInt } from 'node:crypto';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  AllocationError,
  type AllocateRequest,
  type AllocatedSandbox,
  type ExecRequest,
  type ExecResult,
  type HarnessLaunch,
  type HarnessLaunchRequest,
  type HomeFiles,
  type LimitCheck,
  type PreviewEndpoint,
  type PushRequest,
  type PushResult,
  type SandboxLimitHit,
  type SandboxLimitsInForce,
  type SandboxProvider,
  type SandboxRef,
} from '../provider.js';
import { HarnessRelay, type RelayTicket } from './harnessRelay.js';
import { KubernetesError, KubernetesPods, type SandboxPod } from './kubernetesPods.js';
import { restorePod, RestoreError, snapshotPod } from './podArchive.js';
import { readPodHome, writePodHome } from './podHome.js';
import type { ModelDoor, ModelGateway } from '../../modelAccess/modelGateway.js';
import { EgressAllowError, parseEgressAllow, type EgressAllowList } from '../../domain/egressPolicy.js';
import { startSharedEgressProxy, type EgressGrant, type SharedEgressProxy } from '../../egress/egressProxy.js';
import { oncePerDestination, proxyEnvironment, type EgressDecisionPhase, type SandboxEgressSettings, type SandboxOwner } from '../../egress/sandboxEgress.js';
import { commitAndPushFromPod } from './podGit.js';
import { podLimitHit, podLimitReached, podLimitsInForce, type PodLimitCode } from './podLimits.js';
import { buildSandboxManifests, HOME_DIR, ManifestError, REPO_DIR, secretName, type SandboxManifests } from './podManifest.js';
import type { KubernetesSettings } from './settings.js';

export interface KubernetesProviderOptions {
  /** How often a Pod's status is read while it starts (default 1000 ms). */
  pollIntervalMs?: number;
  /** The local executable the harness SDKs spawn (default `services/sandboxes/bin/pod-exec-shim.mjs`). */
  shimPath?: string;
  /** TERM → KILL grace for aborted commands in the Pod (default 5000 ms). */
  killGraceMs?: number;
  /**
   * The model gateway (modelAccess/modelGateway.ts), which this provider then owns (closed with it).
   * `listen()` starts its shared listener for Pods; a launch with `modelAccess` opens a door there
   * bound to the Pod's IP, and no variable holding a company key is sent to a Pod. Absent: a launch
   * with `modelAccess` is refused (a CLI in a Pod has no other way to a model).
   */
  modelGateway?: ModelGateway;
  /**
   * The egress allowlists and where decisions go. `listen()` then starts the shared egress proxy for
   * Pods (EGRESS_PROXY_PORT); a Pod's clone, install steps, dev servers and agent turns each get a
   * grant of their phase's allowlist, bound to the Pod. Absent: Pods are given no proxy (their
   * NetworkPolicy leaves them no other way out).
   */
  egress?: SandboxEgressSettings;
  /**
   * How long one read of a Pod's status answers the limit polls of its run (default 5000 ms): a run
   * polls every 500 ms, the API server is asked at most once per this per sandbox. The check after
   * the harness ended (`fresh`) always reads.
   */
  limitReadIntervalMs?: number;
}

/** See `limitReadIntervalMs`. */
export const DEFAULT_LIMIT_READ_INTERVAL_MS = 5000;

/** The ids this provider makes; anything else a record holds (a `local-…` id) is not its to delete. */
const SANDBOX_ID = /^k8s-[0-9a-f]{20}$/;
export const PREVIEW_PORTS = { min: 20_000, max: 45_000 } as const;
const DEFAULT_CLI = { codex: 'codex', 'claude-code': 'claude' } as const;
export const DEFAULT_SHIM = fileURLToPath(new URL('../../../bin/pod-exec-shim.mjs', import.meta.url));

function labelValue(value: string): string {
  return value
    .replace(/[^A-Za-z0-9_.-]/g, '-')
    .slice(0, 63)
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
}

function sandboxLabels(request: AllocateRequest): Record<string, string> {
  const labels: Record<string, string> = {};
  const record = labelValue(request.sandboxRecordId);
  if (record) labels['agent-run-service.dev/record-id'] = record;
  const run = request.runId === null ? '' : labelValue(request.runId);
  if (run) labels['agent-run-service.dev/run-id'] = run;
  return labels;
}

/** What a Pod reaches without the proxy: K8S_NO_PROXY, and this instance's model gateway (a CLI calls it directly). */
export function directHosts(noProxy: readonly string[], modelBaseUrl: string | null): string[] {
  const gateway = modelBaseUrl === null ? [] : [new URL(modelBaseUrl).hostname.replace(/^\[|\]$/g, '')];
  return [...noProxy, ...gateway];
}

/** Whether a host is one a NO_PROXY entry names, as curl reads it: the name itself or any name under it (`.suffix` too). */
function hostMatches(host: string, entry: string): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, '');
  const domain = entry.startsWith('.') ? entry.slice(1) : entry;
  return name === domain || name.endsWith(`.${domain}`);
}

/** The decision code of a Pod that did not come up (the init container's `ars-init` line says why). */
export function decisionCode(error: KubernetesError): string {
  if (error.reason === 'init_failed') {
    if (error.message.includes('the base branch')) return 'base_branch_missing';
    if (error.message.includes('the working branch')) return 'working_branch_missing';
    if (error.message.includes('the root directory')) return 'root_directory_missing';
    return 'clone_failed';
  }
  if (error.reason === 'timeout') return 'provision_timeout';
  return `kubernetes_${error.reason}`;
}

/** An allocation failure as the seam reports it; an abort (and anything unexpected) passes through. */
function allocationFailure(error: unknown): unknown {
  if (error instanceof RestoreError) return new AllocationError(error.message, error.kind);
  if (error instanceof KubernetesError && error.reason !== 'aborted') return new AllocationError(error.message, decisionCode(error));
  return error;
}

/** The in-Pod CLI: a script runs under node, as the Claude SDK runs a `.js`/`.mjs` path. */
function inPodCommand(request: HarnessLaunchRequest): string[] {
  const cli = request.executablePath ?? DEFAULT_CLI[request.harness];
  return /\.(mjs|cjs|js)$/.test(cli) ? ['node', cli] : [cli];
}

export class KubernetesProvider implements SandboxProvider {
  readonly name = 'kubernetes' as const;
  readonly client: KubernetesPods;
  private readonly pods = new Map<string, SandboxPod>();
  private readonly relay = new HarnessRelay();
  private readonly shimPath: string;
  private readonly killGraceMs: number | undefined;
  private readonly modelGateway: ModelGateway | undefined;
  /** Where a Pod calls its door (the CLI's model base URL), once `listen()` has bound the gateway's port. */
  private modelBaseUrl: string | null = null;
  /** The open doors of each sandbox: closed with their launch, and at the latest with the sandbox. */
  private readonly doors = new Map<string, Set<ModelDoor>>();
  private readonly egress: SandboxEgressSettings | undefined;
  /** The shared egress proxy and the URL Pods reach it at, once `listen()` started it. */
  private egressProxy: { proxy: SharedEgressProxy; reachedAt: string } | null = null;
  /** The open egress grants of each sandbox: closed with their command or launch, and at the latest with the sandbox. */
  private readonly grants = new Map<string, Set<EgressGrant>>();
  /** Whose each sandbox is, for its egress events (a sandbox attached after a restart is its own record's id). */
  private readonly owners = new Map<string, SandboxOwner>();
  /** The last read of each sandbox's Pod status for its limits: when, and what it said (a limit once reached stays reached). */
  private readonly limitReads = new Map<string, { at: number; answer: Promise<PodLimitCode | null>; hit: PodLimitCode | null }>();
  private readonly limitReadIntervalMs: number;

  constructor(
    private readonly settings: KubernetesSettings,
    options: KubernetesProviderOptions = {},
  ) {
    this.client = new KubernetesPods({
      config: settings.config,
      namespace: settings.namespace,
      readyTimeoutMs: settings.readyTimeoutMs,
      ...(options.pollIntervalMs !== undefined ? { pollIntervalMs: options.pollIntervalMs } : {}),
    });
    this.shimPath = options.shimPath ?? DEFAULT_SHIM;
    this.killGraceMs = options.killGraceMs;
    this.modelGateway = options.modelGateway;
    this.egress = options.egress;
    this.limitReadIntervalMs = options.limitReadIntervalMs ?? DEFAULT_LIMIT_READ_INTERVAL_MS;
  }

  /**
   * Starts the model gateway's listener for Pods on MODEL_GATEWAY_PORT: on this instance's Pod IP
   * when that is how Pods reach it (MODEL_GATEWAY_POD_IP), else on every address (MODEL_GATEWAY_URL
   * says how they reach it). Called once at start-up; answers the URL Pods are given.
   */
  async listen(): Promise<{ url: string }> {
    if (!this.modelGateway) throw new Error('the kubernetes provider has no model gateway to listen with');
    const { port, reachedAt } = this.settings.modelGateway;
    const host = 'podIp' in reachedAt ? reachedAt.podIp : undefined;
    const bound = await this.modelGateway.listenShared({ port, ...(host !== undefined ? { host } : {}) });
    this.modelBaseUrl = 'url' in reachedAt ? reachedAt.url : `http://${host?.includes(':') ? `[${host}]` : host}:${bound.port}`;
    if (this.egress) await this.listenForEgress(this.egress);
    return { url: this.modelBaseUrl };
  }

  /** The shared egress proxy on EGRESS_PROXY_PORT, on this instance's Pod IP when that is how Pods reach it. */
  private async listenForEgress(egress: SandboxEgressSettings): Promise<void> {
    const { port, reachedAt } = this.settings.egressProxy;
    const host = 'podIp' in reachedAt ? reachedAt.podIp : undefined;
    const proxy = await startSharedEgressProxy({ port, ...(host !== undefined ? { host } : {}), ...(egress.lookup ? { lookup: egress.lookup } : {}) });
    const name = 'podIp' in reachedAt ? reachedAt.podIp : 'host' in reachedAt ? reachedAt.host : null;
    const url = name === null && 'url' in reachedAt ? reachedAt.url : `http://${name?.includes(':') ? `[${name}]` : name}:${proxy.port}`;
    this.egressProxy = { proxy, reachedAt: url };
  }

  /** Makes the Pod, waits until the repository is ready in it (restores a snapshot when asked); on any failure the Pod is deleted again. */
  async allocate(request: AllocateRequest): Promise<AllocatedSandbox> {
    const sandboxId = `k8s-${randomBytes(10).toString('hex')}`;
    this.owners.set(sandboxId, { sandboxRecordId: request.sandboxRecordId, runId: request.runId });
    // The clone's grant: the clone URL's host alone, until the Pod runs (it has no IP to bind to before).
    const clone = this.cloneGrant(sandboxId, request.cloneUrl);
    try {
      const manifests = this.manifests(sandboxId, request, clone?.env);
      const pod = await this.client.create(manifests).catch((error: unknown) => {
        throw allocationFailure(error);
      });
      try {
        await pod.waitUntilRunning(request.signal ? { signal: request.signal } : {});
        if (request.restoreFrom !== undefined) await restorePod(pod, request.restoreFrom, manifests.workingDir, request.rootDirectory);
      } catch (error) {
        await pod.delete().catch(() => undefined);
        throw allocationFailure(error);
      }
      this.pods.set(sandboxId, pod);
      return { sandboxId, dir: null, repoDir: REPO_DIR, cwd: manifests.workingDir, home: HOME_DIR };
    } catch (error) {
      this.owners.delete(sandboxId);
      throw error;
    } finally {
      clone?.grant.close();
    }
  }

  /**
   * A grant of the egress proxy for a Pod's clone: only the clone URL's host and port, from any
   * address (the Pod has none before it is scheduled), closed once the Pod runs. None for a URL the
   * proxy does not carry (not http(s), an IP address, a K8S_NO_PROXY host): that clone goes direct,
   * where the sandbox namespace's NetworkPolicy allows it.
   */
  private cloneGrant(sandboxId: string, cloneUrl: string): { grant: EgressGrant; env: { url: string; noProxy: string } } | null {
    if (!this.egressProxy) return null;
    // A path (a local repository) or an scp-like `host:path` is no URL the proxy carries.
    if (!URL.canParse(cloneUrl)) return null;
    const url = new URL(cloneUrl);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
    if (this.settings.noProxy.some((entry) => hostMatches(url.hostname, entry))) return null;
    let allow: EgressAllowList;
    try {
      allow = parseEgressAllow(`${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`);
    } catch (error) {
      // An address instead of a name: the proxy would refuse it whatever the list says.
      if (error instanceof EgressAllowError) return null;
      throw error;
    }
    const grant = this.openGrant(sandboxId, 'clone', allow, null);
    return { grant, env: { url: grant.proxyUrl(this.egressProxy.reachedAt), noProxy: this.directHosts().join(',') } };
  }

  /** The proxy variables of a command or launch of `phase`, and its grant; null when that phase may reach nothing (or there is no proxy). */
  private async phaseGrant(
    sandbox: AllocatedSandbox,
    phase: 'install' | 'agent',
    pod: SandboxPod,
  ): Promise<{ grant: EgressGrant; env: Record<string, string> } | null> {
    const allow = this.egress?.[phase];
    if (!this.egressProxy || !allow || allow.rules.length === 0) return null;
    const ip = (await pod.read()).status?.podIP;
    if (!ip) throw new Error(`the pod "${sandbox.sandboxId}" has no IP address: its egress grant cannot be bound to it`);
    const grant = this.openGrant(sandbox.sandboxId, phase, allow, ip);
    return { grant, env: proxyEnvironment(grant.proxyUrl(this.egressProxy.reachedAt), this.directHosts()) };
  }

  private openGrant(sandboxId: string, phase: EgressDecisionPhase, allow: EgressAllowList, peerAddress: string | null): EgressGrant {
    if (!this.egressProxy) throw new Error('the egress proxy does not listen');
    const owner = this.owners.get(sandboxId) ?? { sandboxRecordId: sandboxId, runId: null };
    const onDecision = this.egress?.onDecision;
    const opened = this.egressProxy.proxy.grant({ peerAddress, allow, onDecision: oncePerDestination((event) => onDecision?.(owner, phase, event)) });
    const open = this.grants.get(sandboxId) ?? new Set<EgressGrant>();
    open.add(opened);
    this.grants.set(sandboxId, open);
    return {
      credential: opened.credential,
      proxyUrl: (reachedAt) => opened.proxyUrl(reachedAt),
      close: () => {
        open.delete(opened);
        if (open.size === 0) this.grants.delete(sandboxId);
        opened.close();
      },
    };
  }

  private directHosts(): string[] {
    return directHosts(this.settings.noProxy, this.modelBaseUrl);
  }

  /** A handle on the sandbox's Pod; for a sandbox made before a restart, attached by its id. */
  attach(sandbox: Pick<AllocatedSandbox, 'sandboxId' | 'cwd'>): SandboxPod {
    let pod = this.pods.get(sandbox.sandboxId);
    if (!pod) {
      pod = this.client.attach(sandbox.sandboxId, secretName(sandbox.sandboxId), sandbox.cwd);
      this.pods.set(sandbox.sandboxId, pod);
    }
    return pod;
  }

  /** `/bin/sh -c <command>` in the Pod; a failure of the API (the Pod is gone) is reported in the output with `exitCode: null`. */
  async exec(sandbox: AllocatedSandbox, request: ExecRequest): Promise<ExecResult> {
    if (request.signal?.aborted) return { exitCode: null, aborted: true };
    const pod = this.attach(sandbox);
    let egress: { grant: EgressGrant; env: Record<string, string> } | null = null;
    try {
      // Its way out: a grant of its phase's allowlist for as long as it runs (a dev server: until it is stopped).
      if (request.egress) egress = await this.phaseGrant(sandbox, request.egress, pod);
      return await pod.exec(['/bin/sh', '-c', request.command], {
        cwd: request.cwd,
        env: egress ? { ...request.env, ...egress.env } : request.env,
        onStdout: request.onOutput,
        onStderr: request.onOutput,
        ...(request.signal ? { signal: request.signal } : {}),
        ...(this.killGraceMs !== undefined ? { killGraceMs: this.killGraceMs } : {}),
      });
    } catch (error) {
      if (!(error instanceof KubernetesError)) throw error;
      request.onOutput(Buffer.from(`ars: ${error.message}\n`));
      return { exitCode: null, aborted: request.signal?.aborted ?? false };
    } finally {
      egress?.grant.close();
    }
  }

  /**
   * A random port and the Pod's IP. No Service or Ingress is made: in a cluster the URL answers only
   * from inside the cluster network (this service, or a proxy in front of it).
   */
  async previewEndpoint(sandbox: AllocatedSandbox): Promise<PreviewEndpoint> {
    const ip = (await this.attach(sandbox).read()).status?.podIP;
    if (!ip) throw new Error(`the pod "${sandbox.sandboxId}" has no IP address yet`);
    const port = randomInt(PREVIEW_PORTS.min, PREVIEW_PORTS.max + 1);
    return { port, url: `http://${ip.includes(':') ? `[${ip}]` : ip}:${port}` };
  }

  /**
   * The SDK spawns the local shim; a one-time relay ticket makes it run the CLI in the Pod (see
   * harnessRelay.ts). With `modelAccess`, the run's door on the model gateway: the CLI is told the
   * gateway's URL, and holds the door's credential (the SDK's `apiKey`) instead of a provider key.
   */
  async launchHarness(sandbox: AllocatedSandbox, request: HarnessLaunchRequest): Promise<HarnessLaunch> {
    // Only for the shim on this machine: `node` for its shebang (and for the Claude SDK, which runs `.mjs` under node).
    const local = { PATH: [dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':') };
    const pod = this.attach(sandbox);
    const model = request.modelAccess ? await this.openModelDoor(sandbox, pod) : null;
    const gateway = this.modelGateway;
    let issued: RelayTicket;
    let egress: { grant: EgressGrant; env: Record<string, string> } | null = null;
    try {
      // The agent's turn reaches its model directly, and the outside only through SANDBOX_EGRESS_ALLOW's grant.
      egress = await this.phaseGrant(sandbox, 'agent', pod);
      issued = await this.relay.issue({
        pod,
        sandboxId: sandbox.sandboxId,
        command: inPodCommand(request),
        cwd: request.cwd,
        env: egress ? { ...request.env, ...egress.env } : request.env,
        localKeys: Object.keys(local),
        // Whatever the caller hands the SDK as its key, a company key stays here: only a door's credential enters a Pod.
        ...(gateway ? { withhold: (value: string) => gateway.holdsProviderKey(value) } : {}),
        ...(this.killGraceMs !== undefined ? { killGraceMs: this.killGraceMs } : {}),
      });
    } catch (error) {
      egress?.grant.close();
      if (model) await this.closeDoor(sandbox.sandboxId, model.door);
      throw error;
    }
    const grant = egress?.grant;
    return {
      executablePath: this.shimPath,
      env: { ...local, ARS_POD_EXEC_SOCKET: issued.socket, ARS_POD_EXEC_TICKET: issued.ticket },
      cwd: issued.localCwd,
      // The Pod is the boundary; its CLI's one way to a model is its door on this service's gateway.
      ...(model ? { modelBaseUrl: model.baseUrl, model: model.door } : {}),
      contained: true,
      close: async () => {
        try {
          await this.relay.revoke(issued.ticket);
        } finally {
          grant?.close();
          if (model) await this.closeDoor(sandbox.sandboxId, model.door);
        }
      },
    };
  }

  /** HOME in the Pod, read and written over exec (podHome.ts): a conversation's thread survives its Pod. */
  readonly homeFiles: HomeFiles = {
    read: (sandbox, roots, into, limitBytes) => readPodHome(this.attach(sandbox), roots, into, limitBytes),
    write: (sandbox, files) => writePodHome(this.attach(sandbox), files),
  };

  commitAndPush(sandbox: AllocatedSandbox, request: PushRequest): Promise<PushResult> {
    return commitAndPushFromPod(this.attach(sandbox), request);
  }

  snapshot(sandbox: AllocatedSandbox, file: string): Promise<{ bytes: number }> {
    return snapshotPod(this.attach(sandbox), file);
  }

  /**
   * The limits every sandbox Pod is held to, from the settings (`K8S_MEMORY_LIMIT`, `K8S_CPU_LIMIT`,
   * `K8S_EPHEMERAL_STORAGE_LIMIT`, and `K8S_POD_PIDS_LIMIT` as the operator says the kubelets hold;
   * without it `pids` is null and named in `not_enforced`). Null for a sandbox this provider did not make.
   */
  limitsOf(sandbox: SandboxRef): SandboxLimitsInForce | null {
    if (sandbox.sandboxId === null || !SANDBOX_ID.test(sandbox.sandboxId)) return null;
    return podLimitsInForce(this.settings.resources.limits, this.settings.podPidsLimit ?? null);
  }

  /**
   * The limit the sandbox's Pod reached, by the status the kubelet reported (podLimits.ts): a
   * container `OOMKilled` → `memory_limit`, the Pod evicted for its ephemeral storage → `disk_limit`.
   * Polls reuse a read younger than `limitReadIntervalMs`; a `fresh` check reads. A Pod that is gone
   * is null; an API failure rejects (the session counts it as nothing reached).
   */
  async limitReached(sandbox: SandboxRef, check: LimitCheck = {}): Promise<SandboxLimitHit | null> {
    const limits = this.limitsOf(sandbox);
    if (limits === null || sandbox.sandboxId === null) return null;
    const code = await this.podLimit(sandbox.sandboxId, check.fresh === true);
    return code === null ? null : podLimitHit(code, limits);
  }

  private podLimit(id: string, fresh: boolean): Promise<PodLimitCode | null> {
    const last = this.limitReads.get(id);
    if (last?.hit) return Promise.resolve(last.hit);
    const now = Date.now();
    if (last && !fresh && now - last.at < this.limitReadIntervalMs) return last.answer;
    const pod = this.pods.get(id) ?? this.client.attach(id, secretName(id), REPO_DIR);
    const read = { at: now, answer: pod.readStatus().then(podLimitReached), hit: null as PodLimitCode | null };
    this.limitReads.set(id, read);
    return read.answer.then((code) => {
      read.hit = code;
      return code;
    });
  }

  /** Deletes the Pod and its Secret by id (safe twice; a null or foreign id is left alone). */
  async release(sandbox: SandboxRef): Promise<void> {
    const id = sandbox.sandboxId;
    if (id === null || !SANDBOX_ID.test(id)) return;
    this.limitReads.delete(id);
    await this.relay.revokeSandbox(id);
    // A door left open by a launch never closed dies with its Pod: the Pod's IP may be another Pod's next.
    await Promise.all([...(this.doors.get(id) ?? [])].map((door) => this.closeDoor(id, door)));
    for (const grant of [...(this.grants.get(id) ?? [])]) grant.close();
    this.owners.delete(id);
    this.pods.delete(id);
    await this.client.attach(id, secretName(id), REPO_DIR).delete();
  }

  /** Stops the harness relay and the model gateway (the service's shutdown); Pods stay until their sandboxes are released. */
  async close(): Promise<void> {
    await this.relay.close();
    this.doors.clear();
    this.grants.clear();
    await this.egressProxy?.proxy.close();
    this.egressProxy = null;
    await this.modelGateway?.close();
  }

  /**
   * The run's door on the gateway's shared listener, answering the Pod's own IP only: a credential
   * copied out of the Pod opens nothing from anywhere else. Refused without a gateway that listens,
   * or without the Pod's IP (the door is never left open to every address).
   */
  private async openModelDoor(sandbox: AllocatedSandbox, pod: SandboxPod): Promise<{ door: ModelDoor; baseUrl: string }> {
    if (!this.modelGateway) throw new Error('a harness with model access needs the model gateway (the kubernetes provider was made without one)');
    if (this.modelBaseUrl === null) throw new Error("the model gateway does not listen for Pods yet (the kubernetes provider's listen() runs at start-up)");
    const ip = (await pod.read()).status?.podIP;
    if (!ip) throw new Error(`the pod "${sandbox.sandboxId}" has no IP address: its model door cannot be bound to it`);
    const door = await this.modelGateway.open({ shared: { peerAddress: ip } });
    const open = this.doors.get(sandbox.sandboxId) ?? new Set<ModelDoor>();
    open.add(door);
    this.doors.set(sandbox.sandboxId, open);
    return { door, baseUrl: this.modelBaseUrl };
  }

  private async closeDoor(sandboxId: string, door: ModelDoor): Promise<void> {
    const open = this.doors.get(sandboxId);
    open?.delete(door);
    if (open?.size === 0) this.doors.delete(sandboxId);
    await door.close();
  }

  private manifests(sandboxId: string, request: AllocateRequest, cloneProxy: { url: string; noProxy: string } | undefined): SandboxManifests {
    try {
      return buildSandboxManifests({
        sandboxId,
        namespace: this.settings.namespace,
        image: this.settings.image,
        gitImage: this.settings.gitImage,
        resources: this.settings.resources,
        cloneUrl: request.cloneUrl,
        baseBranch: request.baseBranch,
        workingBranch: request.workingBranch,
        // The local provider creates a missing working branch too.
        createBranch: true,
        rootDirectory: request.rootDirectory,
        labels: sandboxLabels(request),
        ...(cloneProxy ? { cloneProxy } : {}),
        ...(this.settings.serviceAccount !== undefined ? { serviceAccount: this.settings.serviceAccount } : {}),
        ...(this.settings.nodeSelector !== undefined ? { nodeSelector: this.settings.nodeSelector } : {}),
      });
    } catch (error) {
      if (!(error instanceof ManifestError)) throw error;
      const code = error.field === 'rootDirectory' ? 'root_directory_invalid' : 'invalid_request';
      throw new AllocationError(`the sandbox could not be described: ${error.message}`, code);
    }
  }
}
