// The local provider: one directory per sandbox under SANDBOX_ROOT, the repository cloned with the
// git CLI, branches checked out, commands and the harness run inside bubblewrap (isolation.ts: the
// sandbox's directory and nothing else of the host's files, no host network) in their own process
// groups, the push made from a clean repository outside the sandbox. Without isolation
// (SANDBOX_ISOLATION=none, development only) they run as plain local processes.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { constants } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { relativePathProblem } from '@ars/git-refs';
import { withoutCredentials } from '../../domain/credentials.js';
import { GitError, git, pushFromCleanRepository, refExists } from '../git.js';
import type { ModelDoor, ModelGateway } from '../../modelAccess/modelGateway.js';
import { killProcessesWorkingIn } from '../processesInDirectory.js';
import {
  AllocationError,
  type AllocateRequest,
  type AllocatedSandbox,
  type ExecRequest,
  type ExecResult,
  type HarnessLaunch,
  type HarnessLaunchRequest,
  type PreviewEndpoint,
  type PushRequest,
  type PushResult,
  type SandboxLimitHit,
  type SandboxLimitsInForce,
  type SandboxProvider,
  type SandboxRef,
} from '../provider.js';
import { archive, extract } from '../tar.js';
import { harnessCli } from './harnessCli.js';
import { LAUNCH_VARIABLE, SANDBOX_SHIM, shimLaunch, STATE_DIR_VARIABLE } from './harnessShim.js';
import { isolatedCommand, type LocalIsolation } from './localIsolation.js';
import { PreparedSandboxes, type PreparedSandbox } from './preparedSandboxes.js';
import { runSandboxed, type SandboxedCommand } from './sandboxedProcess.js';
import { EMPTY_EGRESS_ALLOW } from '../../domain/egressPolicy.js';
import { EGRESS_PORT_INSIDE, EGRESS_SOCKET_INSIDE, PREVIEW_DIR_INSIDE, proxyEnvironment, SandboxDoors, type SandboxEgressSettings } from './sandboxDoors.js';
import type { SandboxConfinement, SandboxLimits } from './limits/limits.js';

/** Git settings for commands this service runs inside a tree the agent controlled: no hooks, no fsmonitor. */
const SAFE = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false'];
const GITCONFIG = '[user]\n\tname = Agent Run Service\n\temail = agent@ars.local\n';

/** The forwarder run in front of a CLI that calls a model, and the files it needs inside (it imports only node's modules). */
const FORWARDER = fileURLToPath(new URL('../../../bin/loopback-forwarder.mjs', import.meta.url));
export const FORWARDER_FILES = [
  FORWARDER,
  // The built file, from the sources (tests) and the build alike.
  fileURLToPath(new URL('../../../dist/modelAccess/loopbackForwarder.js', import.meta.url)),
  // It makes the built .js files ES modules.
  fileURLToPath(new URL('../../../package.json', import.meta.url)),
];
/** Where a sandboxed CLI calls its model: its own loopback (any port but the gateway's), and the socket behind it. */
export const MODEL_PORT_INSIDE = 4319;
const MODEL_SOCKET_INSIDE = '/run/ars/model.sock';

/** Exit code of a command whose sandbox could not be set up (nothing ran). */
const UNSTARTED = 125;

export interface LocalProviderOptions {
  /** How long an aborted command has between TERM and KILL. */
  killGraceMs?: number;
  /** bubblewrap and the sandbox user, prepared (prepareIsolation()); null: plain local processes (SANDBOX_ISOLATION=none). */
  isolation: LocalIsolation | null;
  /** Where harnesses' model calls go: each run's own door and credential. */
  modelGateway: ModelGateway;
  /** Each sandbox's cgroups and disk (prepareSandboxLimits); null: not limited (no isolation, or development without them). */
  limits?: SandboxLimits | null;
  /** What sandboxes may reach outside, through their egress proxies; absent: nothing. */
  egress?: SandboxEgressSettings;
  /** Sandboxes kept prepared ahead of need (SANDBOX_WARM_POOL; default 0: each allocation prepares its own). */
  warmPool?: number;
  /** Told of a sandbox the warm pool could not prepare or release in the background. */
  onBackgroundError?: (error: unknown) => void;
}

/** What `git clone --branch` says (LANG=C) when the branch is not in the repository, an empty one included. */
const BRANCH_NOT_IN_UPSTREAM = /Remote branch .* not found in upstream/;

export class LocalProvider implements SandboxProvider {
  readonly name = 'local' as const;
  private readonly root: string;
  private readonly killGraceMs: number;
  private readonly isolation: LocalIsolation | null;
  private readonly modelGateway: ModelGateway;
  private readonly limits: SandboxLimits | null;
  /** The confinement of each sandbox this process made, by its directory. */
  private readonly confinements = new Map<string, SandboxConfinement>();
  /** The sandboxes' doors out (egress) and in (previews); null without isolation. */
  private readonly doors: SandboxDoors | null;
  /** Sandboxes prepared ahead of need (SANDBOX_WARM_POOL). */
  private readonly prepared: PreparedSandboxes;

  constructor(root: string, options: LocalProviderOptions) {
    this.root = resolve(root);
    this.killGraceMs = options.killGraceMs ?? 5_000;
    this.isolation = options.isolation;
    this.modelGateway = options.modelGateway;
    this.limits = options.limits ?? null;
    this.doors = options.isolation
      ? new SandboxDoors(options.isolation.runtimeDir, options.egress ?? { install: EMPTY_EGRESS_ALLOW, agent: EMPTY_EGRESS_ALLOW }, options.isolation.user)
      : null;
    this.prepared = new PreparedSandboxes({
      size: options.warmPool ?? 0,
      prepare: () => this.prepareSandbox(),
      discard: async (sandbox) => {
        await this.releaseOnly(sandbox);
      },
      ...(options.onBackgroundError ? { onError: options.onBackgroundError } : {}),
    });
  }

  /** Resolves once the warm pool's sandboxes being prepared are (tests; close() waits for them itself). */
  whenWarmPoolFilled(): Promise<void> {
    return this.prepared.whenFilled();
  }

  /** True when commands and harnesses run inside bubblewrap. */
  get isolated(): boolean {
    return this.isolation !== null;
  }

  async close(): Promise<void> {
    // First: its sandboxes are released while their limits and doors still can be.
    await this.prepared.close();
    await this.modelGateway.close();
    await this.doors?.close();
    await this.limits?.close();
    this.confinements.clear();
    await this.isolation?.close();
  }

  async allocate(request: AllocateRequest): Promise<AllocatedSandbox> {
    const { sandboxId, dir } = this.prepared.take() ?? (await this.prepareSandbox());
    const repoDir = join(dir, 'repo');
    const home = join(dir, 'home');
    try {
      this.doors?.register(dir, { sandboxRecordId: request.sandboxRecordId, runId: request.runId });
      if (request.restoreFrom !== undefined) await this.restore(dir, repoDir, request.restoreFrom);
      else await this.checkout(repoDir, request);
      await mkdir(home, { recursive: true });
      await writeFile(join(home, '.gitconfig'), GITCONFIG);
      const cwd = await this.rootDirectory(repoDir, request);
      // Everything in it is the sandbox user's: the clone and the restore were the service's doing.
      await this.handOverTree(dir);
      return { sandboxId, dir, repoDir, cwd, home };
    } catch (error) {
      await this.release({ sandboxId, dir });
      throw error;
    }
  }

  /**
   * A new sandbox with nothing of any run in it: its directory, its limits in force from the first
   * byte (the disk mounted before anything is written) and its temporary folder. Made ahead of need by
   * the warm pool, or by the allocation itself when none is ready.
   */
  private async prepareSandbox(): Promise<PreparedSandbox> {
    const sandboxId = `local-${randomBytes(10).toString('hex')}`;
    await mkdir(this.root, { recursive: true });
    // The sandbox user passes through to its own sandbox (bwrap binds it as that user); listing the root is not theirs.
    if (this.isolation?.user) await chmod(this.root, 0o711);
    const dir = join(await realpath(this.root), sandboxId);
    await mkdir(dir, { recursive: true });
    try {
      // The limits hold from the first byte: the disk is mounted before a clone or a restore writes anything.
      if (this.limits) this.confinements.set(dir, await this.limits.forSandbox(sandboxId, dir));
      await mkdir(join(dir, 'tmp'), { recursive: true, mode: 0o1777 });
      return { sandboxId, dir };
    } catch (error) {
      // Not release(): a preparation that failed refills nothing (no loop of failures on a full host disk).
      await this.releaseOnly({ sandboxId, dir });
      throw error;
    }
  }

  exec(sandbox: AllocatedSandbox, request: ExecRequest): Promise<ExecResult> {
    if (request.signal?.aborted) return Promise.resolve({ exitCode: null, aborted: true });
    return this.isolation ? this.execIsolated(this.isolation, sandbox, request) : this.execPlain(request);
  }

  /** In bwrap (its set-up tried again when it fails before the command runs); an abort ends the whole sandbox at once. */
  private async execIsolated(isolation: LocalIsolation, sandbox: AllocatedSandbox, request: ExecRequest): Promise<ExecResult> {
    const dir = this.sandboxDir(sandbox);
    const doors = this.doors;
    // Its way out (the phase's egress proxy, when its allowlist names anything) and, for a dev server, the way in.
    const egress = request.egress && doors ? await doors.egress(sandbox.sandboxId, dir, request.egress) : null;
    const preview = request.forwardPort !== undefined && doors ? await doors.preview(sandbox.sandboxId, request.forwardPort) : null;
    const forwarded = [
      ...(egress ? ['--to', String(EGRESS_PORT_INSIDE), EGRESS_SOCKET_INSIDE] : []),
      ...(preview && request.forwardPort !== undefined ? ['--expose', preview.socketInside, String(request.forwardPort)] : []),
    ];
    const shell = ['/bin/sh', '-c', request.command];
    const command = isolatedCommand(isolation, {
      sandboxDir: dir,
      ...this.confinementOf(sandbox),
      cwd: request.cwd,
      readOnly: forwarded.length > 0 ? FORWARDER_FILES : [],
      sockets: [
        ...(egress ? [{ host: egress, inside: EGRESS_SOCKET_INSIDE }] : []),
        ...(preview ? [{ host: preview.folder, inside: PREVIEW_DIR_INSIDE }] : []),
      ],
      command: forwarded.length > 0 ? [await realpath(process.execPath), FORWARDER, ...forwarded, '--', ...shell] : shell,
    });
    const env = egress ? { ...request.env, ...proxyEnvironment() } : request.env;
    try {
      return await this.runIsolated(command, env, request);
    } finally {
      await preview?.close();
    }
  }

  private async runIsolated(command: SandboxedCommand, env: Record<string, string>, request: ExecRequest): Promise<ExecResult> {
    // A process group of its own, so a signal to the group reaches bwrap.
    const run = runSandboxed(command, { env, stdin: 'ignore', stdout: request.onOutput, stderr: request.onOutput, detached: true });
    let aborted = false;
    const onAbort = (): void => {
      aborted = true;
      // Everything at once: nothing outside its PID namespace can TERM its processes.
      run.kill();
    };
    request.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const outcome = await run.outcome;
      if (outcome.ran) return { exitCode: outcome.exitCode, aborted };
      if (outcome.killed) return { exitCode: null, aborted: true };
      request.onOutput(Buffer.from(`ars: the sandbox could not be started: ${outcome.reason}\n`));
      return { exitCode: UNSTARTED, aborted };
    } finally {
      request.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** A plain local process (SANDBOX_ISOLATION=none) in a process group of its own, so an abort reaches whatever it started (npm → node). */
  private execPlain(request: ExecRequest): Promise<ExecResult> {
    return new Promise((resolvePromise) => {
      const child = spawn('/bin/sh', ['-c', request.command], { cwd: request.cwd, env: request.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      let aborted = false;
      let killTimer: NodeJS.Timeout | undefined;
      const signalGroup = (signal: NodeJS.Signals): void => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, signal);
        } catch {
          // already gone
        }
      };
      const onAbort = (): void => {
        aborted = true;
        signalGroup('SIGTERM');
        killTimer = setTimeout(() => signalGroup('SIGKILL'), this.killGraceMs);
        killTimer.unref();
      };
      request.signal?.addEventListener('abort', onAbort, { once: true });
      child.stdout.on('data', (chunk: Buffer) => request.onOutput(chunk));
      child.stderr.on('data', (chunk: Buffer) => request.onOutput(chunk));
      const done = (exitCode: number | null): void => {
        request.signal?.removeEventListener('abort', onAbort);
        if (killTimer) clearTimeout(killTimer);
        resolvePromise({ exitCode, aborted });
      };
      child.on('error', (error) => {
        request.onOutput(Buffer.from(`${error.message}\n`));
        done(127);
      });
      child.on('close', (code, signal) => done(code ?? (signal ? 128 + constants.signals[signal] : null)));
    });
  }

  /** Gives a tree of the sandbox to the sandbox user (what the service wrote there: a clone, a restore, thread files, a commit). */
  private async handOverTree(path: string): Promise<void> {
    const user = this.isolation?.user;
    if (!user) return;
    await chownTree(path, user);
  }

  /** Before the agent's turn: what the service wrote into HOME (a conversation's thread, tool files) becomes the sandbox user's. */
  async handOver(sandbox: AllocatedSandbox): Promise<void> {
    await this.handOverTree(sandbox.home);
  }

  /** Where a sandboxed command's processes are accounted (its cgroups) and what holds its temporary files (its disk). */
  private confinementOf(sandbox: AllocatedSandbox): { procsFiles?: string[]; tmpDir: string } {
    const dir = this.sandboxDir(sandbox);
    const confinement = this.confinements.get(dir);
    return { tmpDir: join(dir, 'tmp'), ...(confinement && confinement.procsFiles.length > 0 ? { procsFiles: [...confinement.procsFiles] } : {}) };
  }

  /** The limits in force on a sandbox (its `limits` lifecycle event); null when it is not limited. */
  limitsOf(sandbox: SandboxRef): SandboxLimitsInForce | null {
    if (!this.limits || !sandbox.dir) return null;
    const confinement = this.confinements.get(sandbox.dir);
    if (!confinement) return null;
    const notEnforced = Object.entries(this.limits.support.limits)
      .filter(([, state]) => state.state === 'unavailable')
      .map(([name]) => name);
    return { ...confinement.limits, not_enforced: notEnforced };
  }

  /** The limit a sandbox's processes reached (a refused fork, an OOM kill, a full disk), or null. */
  async limitReached(sandbox: SandboxRef): Promise<SandboxLimitHit | null> {
    const confinement = sandbox.dir ? this.confinements.get(sandbox.dir) : undefined;
    if (!confinement) return null;
    const hit = await confinement.hit();
    return hit === null ? null : { code: hit, limits: confinement.limits };
  }

  private sandboxDir(sandbox: AllocatedSandbox): string {
    if (!sandbox.dir) throw new Error('a local sandbox without a directory cannot run commands');
    return sandbox.dir;
  }

  async previewEndpoint(): Promise<PreviewEndpoint> {
    const port = await freeLocalPort();
    return { port, url: `http://127.0.0.1:${port}` };
  }

  async launchHarness(sandbox: AllocatedSandbox, request: HarnessLaunchRequest): Promise<HarnessLaunch> {
    const model = request.modelAccess ? await this.openModelDoor(sandbox) : null;
    const close = (): Promise<void> => model?.door.close() ?? Promise.resolve();
    const modelBaseUrl = model ? { modelBaseUrl: model.baseUrl, model: model.door } : {};
    // Without isolation the SDK spawns the CLI right here, a plain child of this service.
    if (!this.isolation) return { executablePath: request.executablePath, env: request.env, cwd: request.cwd, contained: false, ...modelBaseUrl, close };
    try {
      // The SDK spawns the shim with the harness's environment (plus the key it adds); the shim runs
      // the CLI in bwrap with that environment and nothing else.
      const cli = await harnessCli(request.harness, request.executablePath, request.cliFiles);
      const node = await realpath(process.execPath);
      const dir = this.sandboxDir(sandbox);
      // The agent's turn reaches its model, and the outside only as SANDBOX_EGRESS_ALLOW says.
      const egress = this.doors ? await this.doors.egress(sandbox.sandboxId, dir, 'agent') : null;
      const forwarded = [
        ...(model ? ['--to', String(MODEL_PORT_INSIDE), MODEL_SOCKET_INSIDE] : []),
        ...(egress ? ['--to', String(EGRESS_PORT_INSIDE), EGRESS_SOCKET_INSIDE] : []),
      ];
      const launch = isolatedCommand(this.isolation, {
        sandboxDir: dir,
        ...this.confinementOf(sandbox),
        cwd: request.cwd,
        readOnly: [...cli.files, ...(request.toolFiles ?? []), ...(forwarded.length > 0 ? FORWARDER_FILES : [])],
        // A read-only mode: the working tree cannot be changed by any process of the agent, whatever its harness does.
        ...(request.readOnlyTree ? { readOnlyWithin: [request.cwd] } : {}),
        sockets: [
          ...(model ? [{ host: model.door.address, inside: MODEL_SOCKET_INSIDE }] : []),
          ...(egress ? [{ host: egress, inside: EGRESS_SOCKET_INSIDE }] : []),
        ],
        command: forwarded.length > 0 ? [node, FORWARDER, ...forwarded, '--', ...cli.command] : cli.command,
      });
      return {
        executablePath: SANDBOX_SHIM,
        env: { ...request.env, ...(egress ? proxyEnvironment() : {}), [LAUNCH_VARIABLE]: shimLaunch(launch), [STATE_DIR_VARIABLE]: this.isolation.runtimeDir },
        cwd: request.cwd,
        contained: true,
        ...modelBaseUrl,
        close,
      };
    } catch (error) {
      await close();
      throw error;
    }
  }

  /**
   * The run's own door to the model gateway: a Unix socket outside the sandbox's directory (so
   * nothing in the sandbox can replace it), bound into the sandbox; without isolation, a port on 127.0.0.1.
   */
  private async openModelDoor(sandbox: AllocatedSandbox): Promise<{ door: ModelDoor; baseUrl: string }> {
    if (!this.isolation) {
      const door = await this.modelGateway.open({ loopbackPort: 0 });
      return { door, baseUrl: door.address };
    }
    const dir = join(this.isolation.runtimeDir, 'model');
    // Passable by the sandbox user (bwrap binds the socket as it); the socket is the sandbox user's alone.
    await mkdir(dir, { recursive: true, mode: 0o711 });
    const user = this.isolation.user;
    const door = await this.modelGateway.open({
      socketPath: join(dir, `${sandbox.sandboxId}-${randomBytes(4).toString('hex')}.sock`),
      ...(user ? { owner: { uid: user.uid, gid: user.gid } } : {}),
    });
    return { door, baseUrl: `http://127.0.0.1:${MODEL_PORT_INSIDE}` };
  }

  async commitAndPush(sandbox: AllocatedSandbox, request: PushRequest): Promise<PushResult> {
    const { repoDir } = sandbox;
    await git([...SAFE, 'add', '-A'], { cwd: repoDir });
    const status = await git([...SAFE, 'status', '--porcelain'], { cwd: repoDir });
    const committed = status.trim().length > 0;
    if (committed) await git([...SAFE, 'commit', '--quiet', '--no-verify', '-m', request.commitMessage], { cwd: repoDir });
    const commit = (await git(['rev-parse', 'HEAD'], { cwd: repoDir })).trim();
    // The index and objects git just wrote are the service's: the tree stays the sandbox user's (a workspace session goes on in it).
    await this.handOverTree(join(repoDir, '.git'));
    await pushFromCleanRepository(repoDir, request.workingBranch, request.pushUrl, this.root);
    return { committed, commit };
  }

  async snapshot(sandbox: AllocatedSandbox, file: string): Promise<{ bytes: number }> {
    if (!sandbox.dir) throw new Error('a local sandbox without a directory cannot be snapshotted');
    await archive(sandbox.dir, file);
    return { bytes: (await stat(file)).size };
  }

  /** Releases a sandbox (its processes, doors, limits and directory); its resources free again, the warm pool is refilled. */
  async release(sandbox: SandboxRef): Promise<void> {
    if (await this.releaseOnly(sandbox)) this.prepared.released();
  }

  /** Releases a sandbox directory right under the root (true), or leaves alone one that is not (false). */
  private async releaseOnly(sandbox: SandboxRef): Promise<boolean> {
    if (!sandbox.dir) return false;
    const target = resolve(sandbox.dir);
    const roots = [this.root, await realpath(this.root).catch(() => this.root)];
    // Only ever a sandbox directory right under our own root (a path recorded under another configuration is left alone).
    const ours = roots.some((root) => {
      const rel = relative(root, target);
      return rel !== '' && !rel.startsWith('..') && !rel.includes(sep);
    });
    if (!ours) return false;
    // Nothing the agent started outlives its sandbox (the directory is about to go anyway).
    await killProcessesWorkingIn(target);
    // Its cgroups' processes killed, its disk unmounted and deleted, its groups removed: what is left is an empty mount point.
    await this.doors?.release(target);
    const confinement = this.confinements.get(target);
    if (confinement) {
      await confinement.release();
      this.confinements.delete(target);
    }
    await rm(target, { recursive: true, force: true });
    return true;
  }

  /**
   * The clone with its base branch checked out (`clone --branch`: no checkout of the default branch
   * first), then the working branch: four git processes at most, where a base branch that does not
   * exist is the clone's own refusal.
   */
  private async checkout(repoDir: string, request: AllocateRequest): Promise<void> {
    const { signal } = request;
    try {
      await git(['clone', '--quiet', '--branch', request.baseBranch, '--', request.cloneUrl, repoDir], { signal, secrets: [request.cloneUrl] });
    } catch (error) {
      if (signal?.aborted) throw error;
      if (error instanceof GitError && BRANCH_NOT_IN_UPSTREAM.test(error.message)) {
        throw new AllocationError(`the base branch "${request.baseBranch}" does not exist in the repository`, 'base_branch_missing');
      }
      throw new AllocationError(`the repository could not be cloned: ${error instanceof GitError ? error.message : String(error)}`, 'clone_failed');
    }
    // The token (if any) must not stay where the agent can read it; a URL without one (the local source host's) stays as it is, without a git process.
    const withoutToken = withoutCredentials(request.cloneUrl);
    if (withoutToken !== request.cloneUrl) await git(['remote', 'set-url', 'origin', withoutToken], { cwd: repoDir, signal });
    if (request.workingBranch === request.baseBranch) return;
    if (await refExists(repoDir, `refs/remotes/origin/${request.workingBranch}`, signal)) {
      await git(['checkout', '--quiet', '-B', request.workingBranch, `refs/remotes/origin/${request.workingBranch}`], { cwd: repoDir, signal });
    } else {
      await git(['checkout', '--quiet', '-b', request.workingBranch], { cwd: repoDir, signal });
    }
  }

  private async restore(dir: string, repoDir: string, file: string): Promise<void> {
    try {
      await extract(file, dir);
    } catch (error) {
      throw new AllocationError(`the snapshot could not be restored: ${error instanceof Error ? error.message : String(error)}`, 'snapshot_restore_failed');
    }
    const info = await stat(join(repoDir, '.git')).catch(() => null);
    if (!info) throw new AllocationError('the snapshot could not be restored: it holds no repository', 'snapshot_restore_failed');
  }

  private async rootDirectory(repoDir: string, request: AllocateRequest): Promise<string> {
    const rootDirectory = request.rootDirectory;
    if (rootDirectory === null || rootDirectory === '' || rootDirectory === '.') return repoDir;
    const problem = relativePathProblem(rootDirectory);
    if (problem) throw new AllocationError(`the root directory ${problem}`, 'root_directory_invalid');
    const missing = new AllocationError(
      `the root directory "${rootDirectory}" does not exist in the repository on branch "${request.workingBranch}"`,
      'root_directory_missing',
    );
    const candidate = join(repoDir, rootDirectory);
    const real = await realpath(candidate).catch(() => null);
    if (real === null) throw missing;
    const inside = relative(repoDir, real);
    if (inside.startsWith('..') || resolve(repoDir, inside) !== real) throw missing;
    const info = await stat(real).catch(() => null);
    if (!info?.isDirectory()) throw missing;
    return real;
  }
}

/** `chown -R` (the CLI: one process for a whole tree, without following symbolic links). */
function chownTree(path: string, user: { uid: number; gid: number }): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    execFile('chown', ['-R', '-h', `${user.uid}:${user.gid}`, '--', path], (error, _stdout, stderr) => {
      if (error) reject(new Error(`the sandbox could not be handed to its user: ${stderr.trim() || error.message}`));
      else resolvePromise();
    });
  });
}

/** A port nothing listens on right now (the OS picks it). */
export function freeLocalPort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}
