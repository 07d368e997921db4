// One command in a sandbox: bwrap spawned with the command's own environment (never the service's:
// bwrap's PID 1 keeps the environment it was given, readable inside in /proc/1/environ), in the
// sandbox's cgroups from its first instruction. A sandbox has no network but its own loopback: its
// doors to the host are Unix sockets bound into it. A sandbox whose set-up failed before the command
// ran (seen on a busy kernel: bwrap's `loopback: Failed RTM_NEWADDR: No child processes`) is started
// again: nothing of the command ran, so nothing runs twice.
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { constants } from 'node:os';
import type { Readable } from 'node:stream';
import { bwrapArguments, type BoundSocket, type HostLayout } from './isolation.js';
import { enterCgroupsCommand } from './limits/cgroups.js';

/** Everything needed to start a command in a sandbox: plain data (it crosses to the harness shim as JSON). */
export interface SandboxedCommand {
  bwrap: string;
  layout: HostLayout;
  sandboxDir: string;
  cwd: string;
  readOnly: string[];
  /** Paths inside sandboxDir bound read-only over it (the working tree of a read-only run). */
  readOnlyWithin?: string[];
  /** Host Unix sockets bound inside (the model gateway's door). */
  sockets?: BoundSocket[];
  /** The sandbox's `cgroup.procs` files: the launcher joins them before bwrap starts, so every process of the command is counted. */
  procsFiles?: string[];
  /** The sandbox's directory for `/tmp` and `/var/tmp` (on its disk). */
  tmpDir?: string;
  /** The unprivileged host user bwrap (and so every process of the sandbox) runs as; absent: the service's own. */
  user?: { uid: number; gid: number; setpriv: string };
  command: string[];
}

interface SpawnOptions {
  /** The command's whole environment: also bwrap's. */
  env: Record<string, string>;
  /** stdin, stdout, stderr. */
  stdio: [StdioOptions, StdioOptions, StdioOptions] | ['ignore' | 'inherit' | 'pipe', 'ignore' | 'inherit' | 'pipe', 'ignore' | 'inherit' | 'pipe'];
  /** A process group of its own (so a group signal reaches bwrap). */
  detached: boolean;
}

const INFO_FD = 3;
/** Written to by the sandbox right before the command is exec'ed (then closed): its arrival means the set-up is over. */
export const RAN_FD = 5;
/** The command's first step inside: say it runs, let go of the fd, become the command. */
const ANNOUNCE = ['/bin/sh', '-c', `printf 1 >&${RAN_FD}; exec ${RAN_FD}>&-; exec "$@"`, 'sandbox'];

/** How many times a sandbox whose set-up failed is started (the first time included). */
export const SETUP_ATTEMPTS = 3;
const SETUP_PAUSE_MS = 100;

/** Where a command's output goes: a callback, or this process's own fd. */
export type OutputSink = ((chunk: Buffer) => void) | 'inherit';

export interface SandboxedRunOptions {
  /** The command's whole environment: also bwrap's. */
  env: Record<string, string>;
  stdin: 'ignore' | 'inherit';
  stdout: OutputSink;
  /** Always read here: until the command runs, only bwrap writes to it (its words say why a set-up failed). */
  stderr: (chunk: Buffer) => void;
  /** A process group of its own (so a group signal reaches bwrap). */
  detached: boolean;
  /** Default SETUP_ATTEMPTS. */
  attempts?: number;
}

export type SandboxedOutcome =
  /** The command ran: its exit code, or 128 + the signal that ended it. */
  | { ran: true; exitCode: number }
  /** Nothing ran: stopped by kill() first, or the sandbox could not be set up (`reason`, bwrap's words). */
  | { ran: false; killed: boolean; reason: string };

export interface SandboxedRun {
  outcome: Promise<SandboxedOutcome>;
  /** Ends the sandbox (see SandboxedProcess.kill) and starts no other. */
  kill(): void;
}

/**
 * Runs the command in a sandbox, started again (up to `attempts` times in all) while its set-up fails
 * before the command runs. The output a set-up wrote is held back, so a retried start shows nothing.
 */
export function runSandboxed(command: SandboxedCommand, options: SandboxedRunOptions): SandboxedRun {
  const attempts = options.attempts ?? SETUP_ATTEMPTS;
  let killed = false;
  let current: SandboxedProcess | undefined;
  const stopped: SandboxedOutcome = { ran: false, killed: true, reason: 'stopped before the command ran' };
  const outcome = (async (): Promise<SandboxedOutcome> => {
    for (let attempt = 1; ; attempt += 1) {
      const result = await runOnce(command, options, (started) => {
        current = started;
      });
      if (result.ran) return result;
      if (killed) return stopped;
      if (attempt >= attempts) return result;
      await new Promise((resolve) => setTimeout(resolve, SETUP_PAUSE_MS));
      if (killed) return stopped;
    }
  })();
  return {
    outcome,
    kill: () => {
      killed = true;
      current?.kill();
    },
  };
}

function runOnce(command: SandboxedCommand, options: SandboxedRunOptions, onStart: (started: SandboxedProcess) => void): Promise<SandboxedOutcome> {
  return new Promise((resolve) => {
    const stdout = options.stdout;
    const started = startSandboxed(command, {
      env: options.env,
      stdio: [options.stdin, stdout === 'inherit' ? 'inherit' : 'pipe', 'pipe'],
      detached: options.detached,
    });
    onStart(started);
    const { child } = started;
    // Until the command runs, output is held: a failed set-up's words become the reason, not output.
    const held: Array<{ sink: (chunk: Buffer) => void; chunk: Buffer }> = [];
    const release = (): void => {
      for (const { sink, chunk } of held.splice(0)) sink(chunk);
    };
    const forwardTo =
      (sink: (chunk: Buffer) => void) =>
      (chunk: Buffer): void => {
        if (started.hasRun()) {
          release();
          sink(chunk);
        } else held.push({ sink, chunk });
      };
    if (stdout !== 'inherit') child.stdout?.on('data', forwardTo(stdout));
    child.stderr?.on('data', forwardTo(options.stderr));
    void started.running.then(release);
    let settled = false;
    const settle = (result: SandboxedOutcome): void => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    child.once('error', (error) => settle({ ran: false, killed: false, reason: `bwrap could not start: ${error.message}` }));
    // 'close' comes after every pipe closed: a marker that was written has been read by now.
    child.once('close', (code, signal) => {
      if (started.hasRun()) {
        release();
        settle({ ran: true, exitCode: code ?? 128 + (signal ? constants.signals[signal] : 0) });
        return;
      }
      const words = Buffer.concat(held.filter((entry) => entry.sink === options.stderr).map((entry) => entry.chunk))
        .toString('utf8')
        .trim()
        .slice(-500);
      const reason = `bwrap exited ${code ?? signal ?? 'without a status'} before the command ran: ${words || 'no output'}`;
      settle({ ran: false, killed: false, reason });
    });
  });
}

export interface SandboxedProcess {
  /** The bwrap process (its exit code is the command's; it exits once every process of the sandbox is gone). */
  child: ChildProcess;
  /** Resolves when the command itself runs (the set-up is over); stays pending when it never does. */
  running: Promise<void>;
  /** True once the command runs. */
  hasRun(): boolean;
  /**
   * Ends every process of the sandbox at once: SIGKILL to its PID 1 takes the whole PID namespace
   * (signals from outside reach a namespace's init only as SIGKILL), and bwrap exits after it.
   */
  kill(): void;
}

/**
 * The whole argv that starts the command in its sandbox: the launcher that joins the sandbox's
 * cgroups, the sandbox user, bwrap, then `announce` (the command's first step inside), then the command.
 */
export function sandboxedArgv(command: SandboxedCommand, inside: { announce: readonly string[]; infoFd?: number }): string[] {
  const args = bwrapArguments({
    layout: command.layout,
    sandboxDir: command.sandboxDir,
    cwd: command.cwd,
    readOnly: command.readOnly,
    ...(command.readOnlyWithin ? { readOnlyWithin: command.readOnlyWithin } : {}),
    ...(command.sockets ? { sockets: command.sockets } : {}),
    ...(command.tmpDir !== undefined ? { tmpDir: command.tmpDir } : {}),
    ...(inside.infoFd !== undefined ? { infoFd: inside.infoFd } : {}),
    command: [...inside.announce, ...command.command],
  });
  // In the sandbox's cgroups before bwrap runs (the shell joins them, then becomes bwrap: same pid), so nothing escapes them by forking early.
  // Then the sandbox user, with no supplementary groups and no way to gain privileges back.
  const asUser = command.user
    ? [command.user.setpriv, `--reuid=${command.user.uid}`, `--regid=${command.user.gid}`, '--clear-groups', '--no-new-privs', command.bwrap, ...args]
    : [command.bwrap, ...args];
  return command.procsFiles && command.procsFiles.length > 0 ? enterCgroupsCommand(command.procsFiles, asUser) : asUser;
}

/** Spawns bwrap for the command (through the launcher that joins the sandbox's cgroups). */
function startSandboxed(command: SandboxedCommand, options: SpawnOptions): SandboxedProcess {
  // fd 4 unused (kept so the marker stays on fd 5).
  const stdio = [...options.stdio, 'pipe', 'ignore', 'pipe'] as StdioOptions;
  const [file, ...argv] = sandboxedArgv(command, { announce: ANNOUNCE, infoFd: INFO_FD });
  // bwrap's --chdir gives the command its cwd; bwrap itself starts at / (the sandbox user may not pass the service's cwd).
  const child = spawn(file ?? command.bwrap, argv, { cwd: '/', env: options.env, detached: options.detached, stdio });
  let ran = false;
  const running = new Promise<void>((resolve) => {
    const marker = (child.stdio as unknown as Readable[])[RAN_FD] as Readable;
    marker.on('error', () => undefined);
    // Kept drained: processes of the sandbox could still reach it through its PID 1.
    marker.on('data', () => {
      if (ran) return;
      ran = true;
      resolve();
    });
  });
  const initPid = sandboxPid(child, child.stdio[INFO_FD] as Readable);
  let init: number | undefined;
  // A command that ended before its pid was read (its exit seen first) has nothing left to kill.
  initPid.then(
    (pid) => {
      init = pid;
    },
    () => undefined,
  );
  const kill = (): void => {
    signal(init ?? child.pid, 'SIGKILL');
    // Not started yet (or its init already gone): bwrap itself, its sandbox dies with it (--die-with-parent).
    if (init === undefined) signal(child.pid, 'SIGKILL');
  };
  return { child, running, hasRun: () => ran, kill };
}

/** The `child-pid` bwrap reports on its info fd (JSON); rejects when the fd closes (bwrap ended) without it. */
function sandboxPid(child: ChildProcess, info: Readable): Promise<number> {
  return new Promise((resolve, reject) => {
    let text = '';
    let done = false;
    const finish = (error: Error | null, pid?: number): void => {
      if (done) return;
      done = true;
      info.removeAllListeners('data');
      // Drained, not closed: bwrap may still be writing to it.
      info.resume();
      if (error) reject(error);
      else resolve(pid ?? 0);
    };
    info.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      const match = /"child-pid"\s*:\s*(\d+)/.exec(text);
      if (match) finish(null, Number(match[1]));
    });
    info.once('close', () => finish(new Error('bwrap ended before the sandbox started')));
    info.on('error', () => undefined);
    child.once('error', (error) => finish(error));
  });
}

function signal(pid: number | undefined, name: NodeJS.Signals): void {
  try {
    if (pid !== undefined) process.kill(pid, name);
  } catch {
    // already gone
  }
}
