// One command in a sandbox: bwrap spawned with the command's own environment (never the service's:
// bwrap's PID 1 keeps the environment it was given, readable inside in /proc/1/environ), and, for a
// command with network, slirp4netns attached before the command is let go.
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { bwrapArguments, type HostLayout, type SandboxNetwork } from './isolation.js';
import { attachSlirp, type SlirpNetwork } from './slirp.js';

/** Everything needed to start a command in a sandbox: plain data (it crosses to the harness shim as JSON). */
export interface SandboxedCommand {
  bwrap: string;
  slirp: string;
  layout: HostLayout;
  sandboxDir: string;
  cwd: string;
  readOnly: string[];
  network: SandboxNetwork;
  /** A port forwarded from the host's 127.0.0.1 (network `internet` only). */
  forwardPort?: number;
  /** A private directory for slirp4netns's API socket. */
  runtimeDir: string;
  command: string[];
}

export interface SpawnOptions {
  /** The command's whole environment: also bwrap's. */
  env: Record<string, string>;
  /** stdin, stdout, stderr. */
  stdio: [StdioOptions, StdioOptions, StdioOptions] | ['ignore' | 'inherit' | 'pipe', 'ignore' | 'inherit' | 'pipe', 'ignore' | 'inherit' | 'pipe'];
  /** A process group of its own (so a group signal reaches bwrap). */
  detached: boolean;
}

const INFO_FD = 3;
const BLOCK_FD = 4;

export interface SandboxedProcess {
  /** The bwrap process (its exit code is the command's; it exits once every process of the sandbox is gone). */
  child: ChildProcess;
  /** Resolves once the command runs; rejects (bwrap killed) when its network could not be set up. */
  started: Promise<void>;
  /**
   * Ends every process of the sandbox at once: SIGKILL to its PID 1 takes the whole PID namespace
   * (signals from outside reach a namespace's init only as SIGKILL), and bwrap exits after it.
   */
  kill(): void;
}

/** Spawns bwrap for the command and, with network, attaches slirp4netns before unblocking it. */
export function startSandboxed(command: SandboxedCommand, options: SpawnOptions): SandboxedProcess {
  const withNetwork = command.network === 'internet';
  const args = bwrapArguments({
    layout: command.layout,
    sandboxDir: command.sandboxDir,
    cwd: command.cwd,
    readOnly: command.readOnly,
    network: command.network,
    infoFd: INFO_FD,
    ...(withNetwork ? { blockFd: BLOCK_FD } : {}),
    command: command.command,
  });
  const stdio = [...options.stdio, 'pipe', ...(withNetwork ? ['pipe'] : [])] as StdioOptions;
  const child = spawn(command.bwrap, args, { cwd: command.cwd, env: options.env, detached: options.detached, stdio });
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
  return { child, started: withNetwork ? connectNetwork(child, command, initPid) : Promise.resolve(), kill };
}

async function connectNetwork(child: ChildProcess, command: SandboxedCommand, initPid: Promise<number>): Promise<void> {
  const block = child.stdio[BLOCK_FD] as Writable;
  block.on('error', () => undefined);
  const apiSocket = command.forwardPort === undefined ? undefined : join(command.runtimeDir, `slirp-${randomBytes(6).toString('hex')}.sock`);
  let network: SlirpNetwork;
  try {
    const pid = await initPid;
    network = await attachSlirp({ program: command.slirp, pid, ...(apiSocket ? { apiSocket, forwardPort: command.forwardPort } : {}) });
  } catch (error) {
    signal(child.pid, 'SIGKILL');
    if (apiSocket) await rm(apiSocket, { force: true });
    throw error;
  }
  const onExit = (): void => {
    network.stop();
    if (apiSocket) rm(apiSocket, { force: true }).catch(() => undefined);
  };
  if (child.exitCode !== null || child.signalCode !== null) onExit();
  else child.once('exit', onExit);
  // Let the command go: bwrap waits on this fd until something arrives.
  block.end('1');
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
