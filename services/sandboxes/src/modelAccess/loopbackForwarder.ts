// The sandbox side of a harness's way to a model. A sandbox has no network but its own loopback,
// and the CLIs speak HTTP to a URL: this program, started inside the sandbox in front of the CLI,
// listens on the sandbox's 127.0.0.1:<port> and pipes every connection to the model proxy's Unix
// socket bound into the sandbox (modelProxy.ts), then runs the CLI and ends as it ends. It imports
// nothing but node's own modules: only its own file is bound into the sandbox.
//
//   node loopbackForwarder.js <port> <socket path> -- <command> [args…]
import { spawn } from 'node:child_process';
import { connect, createServer, type Socket } from 'node:net';
import { constants } from 'node:os';

/** Exit code when the forwarder itself could not start (nothing of the command ran). */
const UNSTARTED = 125;

export async function main(argv: string[]): Promise<number> {
  const separator = argv.indexOf('--');
  const [portText, socketPath] = argv.slice(0, separator);
  const command = separator < 0 ? [] : argv.slice(separator + 1);
  const port = Number(portText);
  if (separator !== 2 || !Number.isInteger(port) || port <= 0 || port > 65_535 || !socketPath || command.length === 0) {
    process.stderr.write('usage: loopback-forwarder <port> <socket path> -- <command> [args…]\n');
    return UNSTARTED;
  }
  const server = createServer((client) => pipeTo(client, socketPath));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
  } catch (error) {
    process.stderr.write(`loopback-forwarder: cannot listen on 127.0.0.1:${port}: ${error instanceof Error ? error.message : String(error)}\n`);
    return UNSTARTED;
  }
  return runCommand(command);
}

/** One connection, both ways, until either side ends. */
function pipeTo(client: Socket, socketPath: string): void {
  const upstream = connect(socketPath);
  const end = (): void => {
    client.destroy();
    upstream.destroy();
  };
  client.on('error', end);
  upstream.on('error', end);
  client.pipe(upstream);
  upstream.pipe(client);
}

/** The CLI with this process's stdio and environment; its exit code (128 + signal when killed) is ours. */
function runCommand(command: string[]): Promise<number> {
  const [file = '', ...args] = command;
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: 'inherit' });
    // A signal to the forwarder is meant for the CLI (the harness shim forwards the SDK's stop).
    for (const name of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(name, () => child.kill(name));
    child.once('error', (error) => {
      process.stderr.write(`loopback-forwarder: ${file}: ${error.message}\n`);
      resolve(127);
    });
    child.once('exit', (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0)));
  });
}
