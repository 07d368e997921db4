// The relay between the harness SDKs and a CLI that runs in a Pod. The SDKs spawn their CLI as a
// local process; for a Pod they spawn the pod-exec shim instead, which connects here over a Unix
// socket, presents a one-time ticket and its argv/env, and streams stdio. The relay runs the CLI with
// `SandboxPod.exec`, so the service's Kubernetes credential never leaves this process, and the
// harness environment (the run's model credential) reaches the Pod only through exec's stdin, never a
// command line. A company provider key never reaches it at all: a variable holding one is withheld.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { SandboxPod } from './kubernetesPods.js';
import { encodeFrame, FRAME, FrameReader, jsonFrame, type Frame } from './relayFrames.js';

/** What one ticket lets the shim run. */
export interface RelayGrant {
  pod: SandboxPod;
  sandboxId: string;
  /** The in-Pod command the shim's argv is appended to (e.g. `['codex']`, `['node', '/opt/claude.mjs']`). */
  command: string[];
  /** In-Pod working directory. */
  cwd: string;
  /** The harness environment (sandbox paths, maybe the provider key): wins over what the shim forwards, except the SDK's own additions. */
  env: Record<string, string>;
  /** Variables the launch gave the shim for this machine only (PATH to node): not forwarded to the Pod. */
  localKeys: readonly string[];
  /** True for a value that must never enter the Pod (one holding a company provider key): its variable is withheld. */
  withhold?: (value: string) => boolean;
  killGraceMs?: number;
}

export interface RelayTicket {
  socket: string;
  ticket: string;
  /** A private local directory standing for the in-Pod cwd (the SDK spawns the shim there). */
  localCwd: string;
}

interface Hello {
  ticket: string;
  argv: string[];
  env: Record<string, string>;
}

interface Listening {
  server: Server;
  dir: string;
  socket: string;
}

interface Issued extends RelayGrant {
  localCwd: string;
  used: boolean;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
export const SHIM_ENV_PREFIX = 'ARS_POD_EXEC_';
/** Exit codes the shim reports when nothing ran in the Pod. */
const REFUSED = 126;
const NOT_RUN = 127;

function isStringRecord(value: unknown): value is Record<string, string> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string');
}

function parseHello(payload: Buffer): Hello | null {
  try {
    const value: unknown = JSON.parse(payload.toString('utf8'));
    if (typeof value !== 'object' || value === null) return null;
    const { ticket, argv, env } = value as Record<string, unknown>;
    if (typeof ticket !== 'string' || !Array.isArray(argv) || !argv.every((a) => typeof a === 'string') || !isStringRecord(env)) return null;
    return { ticket, argv: argv as string[], env };
  } catch {
    return null;
  }
}

/** The SDK passes the shim's own cwd in argv (codex `--cd`): in the Pod that is the sandbox's cwd. */
export function podArgv(argv: string[], localCwd: string, podCwd: string): string[] {
  return argv.map((arg) => (arg === localCwd ? podCwd : arg.startsWith(`${localCwd}/`) ? podCwd + arg.slice(localCwd.length) : arg));
}

/**
 * The harness env, plus what the SDK added to the shim's env (the run's model credential, its
 * markers), less any variable whose value `withhold` refuses: whatever a caller passed as `apiKey`
 * (the SDK puts it in CODEX_API_KEY / ANTHROPIC_API_KEY), a company key stays on this machine.
 */
export function podEnvironment(grant: Pick<RelayGrant, 'env' | 'localKeys' | 'withhold'>, forwarded: Record<string, string>): Record<string, string> {
  const added = Object.entries(forwarded).filter(([name]) => ENV_NAME.test(name) && !name.startsWith(SHIM_ENV_PREFIX) && !grant.localKeys.includes(name));
  const env = { ...grant.env, ...Object.fromEntries(added) };
  const withhold = grant.withhold;
  return withhold ? Object.fromEntries(Object.entries(env).filter(([, value]) => !withhold(value))) : env;
}

export class HarnessRelay {
  private listening: Promise<Listening> | null = null;
  private readonly issued = new Map<string, Issued>();
  private readonly running = new Map<string, { sandboxId: string; controller: AbortController }>();
  private readonly sockets = new Set<Socket>();

  constructor(private readonly options: { helloTimeoutMs?: number } = {}) {}

  /** Issues a one-time ticket for `grant` (starts the relay on first use). */
  async issue(grant: RelayGrant): Promise<RelayTicket> {
    const { dir, socket } = await this.listen();
    const ticket = randomBytes(32).toString('base64url');
    // Its name holds nothing of the ticket: it appears on the shim's command line (codex `--cd`).
    const localCwd = join(dir, `cwd-${randomBytes(8).toString('hex')}`);
    await mkdir(localCwd, { mode: 0o700 });
    this.issued.set(ticket, { ...grant, localCwd, used: false });
    return { socket, ticket, localCwd };
  }

  /** Unknown afterwards (its local cwd removed); a command it started is aborted. */
  async revoke(ticket: string): Promise<void> {
    const issued = this.issued.get(ticket);
    this.issued.delete(ticket);
    this.running.get(ticket)?.controller.abort();
    if (issued) await rm(issued.localCwd, { recursive: true, force: true });
  }

  /** Revokes every ticket of a sandbox (it is being released). */
  async revokeSandbox(sandboxId: string): Promise<void> {
    const tickets = [...this.issued.entries()].filter(([, grant]) => grant.sandboxId === sandboxId).map(([ticket]) => ticket);
    await Promise.all(tickets.map((ticket) => this.revoke(ticket)));
  }

  async close(): Promise<void> {
    const listening = this.listening;
    this.listening = null;
    for (const { controller } of this.running.values()) controller.abort();
    this.issued.clear();
    if (!listening) return;
    const { server, dir } = await listening.catch(() => ({ server: null, dir: null }));
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    if (dir) await rm(dir, { recursive: true, force: true });
  }

  private listen(): Promise<Listening> {
    this.listening ??= this.start();
    return this.listening;
  }

  private async start(): Promise<Listening> {
    // mkdtemp makes the directory 0700: only this user can reach the socket inside it.
    const dir = await mkdtemp(join(tmpdir(), 'ars-pod-relay-'));
    await chmod(dir, 0o700);
    const socket = join(dir, 'relay.sock');
    const server = createServer((connection) => this.accept(connection));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socket, () => resolve());
    });
    await chmod(socket, 0o600);
    // The service's shutdown does not wait for an idle relay; live connections still hold the loop.
    server.unref();
    return { server, dir, socket };
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    const reader = new FrameReader();
    const stdin = new PassThrough();
    let controller: AbortController | null = null;
    let refused = false;
    const timer = setTimeout(() => {
      if (controller === null) socket.destroy();
    }, this.options.helloTimeoutMs ?? 10_000);
    timer.unref();
    const onFrame = (frame: Frame): void => {
      if (refused) return;
      if (controller === null) {
        controller = frame.type === FRAME.hello ? this.begin(socket, frame.payload, stdin) : null;
        refused = controller === null;
      } else if (frame.type === FRAME.stdin && !stdin.writableEnded) stdin.write(frame.payload);
      else if (frame.type === FRAME.stdinEnd && !stdin.writableEnded) stdin.end();
    };
    socket.on('data', (chunk: Buffer) => {
      try {
        for (const frame of reader.push(chunk)) onFrame(frame);
      } catch {
        socket.destroy();
      }
    });
    socket.on('error', () => undefined);
    // The shim's connection drops when the SDK killed it: the command in the Pod goes with it.
    socket.on('close', () => {
      clearTimeout(timer);
      this.sockets.delete(socket);
      controller?.abort();
    });
  }

  private begin(socket: Socket, payload: Buffer, stdin: PassThrough): AbortController | null {
    const hello = parseHello(payload);
    const grant = hello ? this.issued.get(hello.ticket) : undefined;
    if (!hello || !grant || grant.used) {
      socket.end(jsonFrame(FRAME.error, { message: 'pod-exec relay: the ticket is unknown, used or revoked', exitCode: REFUSED }));
      return null;
    }
    // One command per ticket: a copy of the shim's environment cannot start a second one.
    grant.used = true;
    const controller = new AbortController();
    this.running.set(hello.ticket, { sandboxId: grant.sandboxId, controller });
    void this.run(socket, grant, hello, stdin, controller.signal).finally(() => this.running.delete(hello.ticket));
    return controller;
  }

  private async run(socket: Socket, grant: Issued, hello: Hello, stdin: PassThrough, signal: AbortSignal): Promise<void> {
    const send = (frame: Buffer): void => {
      if (!socket.destroyed && socket.writable) socket.write(frame);
    };
    try {
      const result = await grant.pod.exec([...grant.command, ...podArgv(hello.argv, grant.localCwd, grant.cwd)], {
        cwd: grant.cwd,
        env: podEnvironment(grant, hello.env),
        stdin,
        onStdout: (chunk) => send(encodeFrame(FRAME.stdout, chunk)),
        onStderr: (chunk) => send(encodeFrame(FRAME.stderr, chunk)),
        signal,
        ...(grant.killGraceMs !== undefined ? { killGraceMs: grant.killGraceMs } : {}),
      });
      send(jsonFrame(FRAME.exit, { exitCode: result.exitCode }));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      send(jsonFrame(FRAME.error, { message: `pod-exec relay: the harness could not run in pod "${grant.pod.name}": ${message}`, exitCode: NOT_RUN }));
    } finally {
      socket.end();
    }
  }
}
