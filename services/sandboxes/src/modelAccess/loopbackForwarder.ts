// The sandbox side of its doors to the host. A sandbox has no network but its own loopback, and
// programs speak TCP to an address: this program, started inside the sandbox in front of a command,
// connects the sandbox's loopback to the Unix sockets bound into it, then runs the command and ends
// as it ends. It imports nothing but node's own modules: only its own file is bound into the sandbox.
// - `--to <port> <socket>`: listens on the sandbox's 127.0.0.1:<port> and pipes each connection to a
//   host service's socket (the model gateway's door, the egress proxy).
// - `--expose <socket> <port>`: listens on a socket in a folder the host also sees and pipes each
//   connection to the sandbox's 127.0.0.1:<port> (a dev server, reached from the host without any
//   route into the sandbox).
//
//   node loopbackForwarder.js [--to <port> <socket>]… [--expose <socket> <port>]… -- <command> [args…]
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { constants } from 'node:os';

/** Exit code when the forwarder itself could not start (nothing of the command ran). */
const UNSTARTED = 125;

type Door = { kind: 'to'; port: number; socket: string } | { kind: 'expose'; socket: string; port: number };

export async function main(argv: string[]): Promise<number> {
  const separator = argv.indexOf('--');
  const doors = separator < 0 ? null : parseDoors(argv.slice(0, separator));
  const command = separator < 0 ? [] : argv.slice(separator + 1);
  if (!doors || doors.length === 0 || command.length === 0) {
    process.stderr.write('usage: loopback-forwarder [--to <port> <socket>]… [--expose <socket> <port>]… -- <command> [args…]\n');
    return UNSTARTED;
  }
  for (const door of doors) {
    try {
      await open(door);
    } catch (error) {
      const where = door.kind === 'to' ? `127.0.0.1:${door.port}` : door.socket;
      process.stderr.write(`loopback-forwarder: cannot listen on ${where}: ${error instanceof Error ? error.message : String(error)}\n`);
      return UNSTARTED;
    }
  }
  return runCommand(command);
}

function parseDoors(args: string[]): Door[] | null {
  const doors: Door[] = [];
  for (let i = 0; i < args.length; i += 3) {
    const [flag, first, second] = [args[i], args[i + 1], args[i + 2]];
    if (flag === '--to') {
      const port = portOf(first);
      if (port === null || !second) return null;
      doors.push({ kind: 'to', port, socket: second });
    } else if (flag === '--expose') {
      const port = portOf(second);
      if (port === null || !first) return null;
      doors.push({ kind: 'expose', socket: first, port });
    } else return null;
  }
  return doors;
}

function portOf(text: string | undefined): number | null {
  const port = Number(text);
  return Number.isInteger(port) && port > 0 && port <= 65_535 ? port : null;
}

function open(door: Door): Promise<Server> {
  const server =
    door.kind === 'to'
      ? createServer((client) => pipeBoth(client, connect(door.socket)))
      : createServer((client) => pipeBoth(client, connect({ host: '127.0.0.1', port: door.port })));
  if (door.kind === 'expose') rmSync(door.socket, { force: true });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    if (door.kind === 'to') server.listen(door.port, '127.0.0.1', () => resolve(server));
    else server.listen(door.socket, () => resolve(server));
  });
}

/** One connection, both ways, until either side ends (the host side's preview door uses it too). */
export function pipeBoth(client: Socket, upstream: Socket): void {
  const end = (): void => {
    client.destroy();
    upstream.destroy();
  };
  client.on('error', end);
  upstream.on('error', end);
  client.pipe(upstream);
  upstream.pipe(client);
}

/** The command with this process's stdio and environment; its exit code (128 + signal when killed) is ours. */
function runCommand(command: string[]): Promise<number> {
  const [file = '', ...args] = command;
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: 'inherit' });
    // A signal to the forwarder is meant for the command (the harness shim forwards the SDK's stop).
    for (const name of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(name, () => child.kill(name));
    child.once('error', (error) => {
      process.stderr.write(`loopback-forwarder: ${file}: ${error.message}\n`);
      resolve(127);
    });
    child.once('exit', (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0)));
  });
}
