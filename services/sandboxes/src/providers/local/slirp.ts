// The network of a sandbox that needs one: slirp4netns attached to the sandbox's network namespace.
// It reaches the internet with the host's sockets, but `--disable-host-loopback` keeps the host's
// own services (127.0.0.1: MongoDB, Redis, the services) out of reach: 10.0.2.2 goes nowhere. A dev
// server's port is forwarded from the host's 127.0.0.1 through the API socket.
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import type { Readable, Writable } from 'node:stream';

export interface SlirpNetwork {
  /** Ends slirp4netns (it also ends by itself when this process does: its exit fd closes). */
  stop(): void;
}

export interface SlirpOptions {
  /** slirp4netns's absolute path. */
  program: string;
  /** The sandbox's pid (in its network namespace). */
  pid: number;
  /** A path for the API socket (needed for a forward). */
  apiSocket?: string;
  /** A host port forwarded to the same port inside (a dev server). */
  forwardPort?: number;
  /** How long slirp4netns has to attach. */
  timeoutMs?: number;
}

/** Attaches slirp4netns to the sandbox's namespace; resolves once it is configured (and the port forwarded). */
export async function attachSlirp(options: SlirpOptions): Promise<SlirpNetwork> {
  const args = ['--configure', '--mtu=65520', '--disable-host-loopback', '--exit-fd=3', '--ready-fd=4'];
  if (options.apiSocket !== undefined) args.push('--api-socket', options.apiSocket);
  args.push(String(options.pid), 'tap0');
  // No environment at all: slirp4netns needs none, and it runs outside the sandbox.
  const child = spawn(options.program, args, { env: {}, stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
  const exitFd = child.stdio[3] as Writable;
  const readyFd = child.stdio[4] as Readable;
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-1_000);
  });
  exitFd.on('error', () => undefined);
  const stop = (): void => {
    exitFd.destroy();
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  };
  try {
    await readyOrExit(child, readyFd, options.timeoutMs ?? 10_000, () => stderr);
    if (options.forwardPort !== undefined) {
      if (options.apiSocket === undefined) throw new Error('a port forward needs the API socket');
      await addHostForward(options.apiSocket, options.forwardPort);
    }
  } catch (error) {
    stop();
    throw error;
  }
  return { stop };
}

function readyOrExit(child: ChildProcess, readyFd: Readable, timeoutMs: number, stderr: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`slirp4netns did not attach within ${timeoutMs} ms`)), timeoutMs);
    const onExit = (code: number | null): void => finish(new Error(`slirp4netns exited (${code ?? 'signal'}): ${stderr().trim() || 'no output'}`));
    const onError = (error: Error): void => finish(new Error(`slirp4netns could not start: ${error.message}`));
    const finish = (error?: Error): void => {
      clearTimeout(timer);
      child.off('exit', onExit);
      child.off('error', onError);
      readyFd.removeAllListeners('data');
      readyFd.destroy();
      if (error) reject(error);
      else resolve();
    };
    child.once('exit', onExit);
    child.once('error', onError);
    readyFd.on('data', () => finish());
  });
}

/** `add_hostfwd` through the API socket: host 127.0.0.1:port → the sandbox's port. */
function addHostForward(socketPath: string, port: number): Promise<void> {
  const request = { execute: 'add_hostfwd', arguments: { proto: 'tcp', host_addr: '127.0.0.1', host_port: port, guest_port: port } };
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let answer = '';
    socket.setTimeout(5_000, () => socket.destroy(new Error('slirp4netns did not answer add_hostfwd')));
    socket.on('connect', () => socket.end(JSON.stringify(request)));
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('utf8');
    });
    socket.on('error', reject);
    socket.on('close', () => {
      if (/"return"/.test(answer)) resolve();
      else reject(new Error(`slirp4netns refused the port forward of ${port}: ${answer.trim() || 'no answer'}`));
    });
  });
}
