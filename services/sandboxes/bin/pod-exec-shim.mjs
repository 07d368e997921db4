#!/usr/bin/env node
// The harness CLI as the SDKs see it when the sandbox is a Kubernetes Pod: the SDKs spawn a local
// executable, so they spawn this one, and it runs the real CLI in the Pod through the provider's
// relay (src/providers/kubernetes/harnessRelay.ts). It forwards its argv, its environment (minus
// ARS_POD_EXEC_*), stdin, stdout, stderr and the exit code. Killing it drops the connection, and the
// relay ends the command in the Pod. It holds no credential: the Unix socket (in a private directory)
// and a one-time ticket arrive in its environment, never on its command line.
// Plain JavaScript without imports of the service: it runs without a build step.
import { connect } from 'node:net';

const FRAME = { hello: 1, stdin: 2, stdinEnd: 3, stdout: 4, stderr: 5, exit: 6, error: 7 };
const PREFIX = 'ARS_POD_EXEC_';
/** No relay to talk to: nothing ran. */
const UNREACHABLE = 125;

const socketPath = process.env.ARS_POD_EXEC_SOCKET;
const ticket = process.env.ARS_POD_EXEC_TICKET;

function fail(message, code) {
  process.stderr.write(`pod-exec-shim: ${message}\n`, () => process.exit(code));
}

function frame(type, payload = Buffer.alloc(0)) {
  const header = Buffer.alloc(5);
  header[0] = type;
  header.writeUInt32BE(payload.length, 1);
  return Buffer.concat([header, payload]);
}

function frameReader(onFrame) {
  let buffer = Buffer.alloc(0);
  return (chunk) => {
    buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
    while (buffer.length >= 5) {
      const length = buffer.readUInt32BE(1);
      if (buffer.length < 5 + length) break;
      onFrame(buffer[0], buffer.subarray(5, 5 + length));
      buffer = buffer.subarray(5 + length);
    }
  };
}

function forwardedEnv() {
  return Object.fromEntries(Object.entries(process.env).filter(([name, value]) => value !== undefined && !name.startsWith(PREFIX)));
}

function main() {
  if (!socketPath || !ticket) {
    fail('ARS_POD_EXEC_SOCKET and ARS_POD_EXEC_TICKET are required (this shim is started by the Kubernetes provider)', UNREACHABLE);
    return;
  }
  const socket = connect(socketPath);
  let done = false;
  const finish = (code) => {
    if (done) return;
    done = true;
    process.stdin.destroy();
    socket.destroy();
    process.stdout.write('', () => process.exit(code));
  };
  const send = (data) => {
    if (!socket.destroyed) socket.write(data);
  };
  socket.on('connect', () => {
    send(frame(FRAME.hello, Buffer.from(JSON.stringify({ ticket, argv: process.argv.slice(2), env: forwardedEnv() }), 'utf8')));
    process.stdin.on('data', (chunk) => send(frame(FRAME.stdin, chunk)));
    process.stdin.on('end', () => send(frame(FRAME.stdinEnd)));
  });
  process.stdin.on('error', () => undefined);
  process.stdout.on('error', () => undefined);
  process.stderr.on('error', () => undefined);
  socket.on(
    'data',
    frameReader((type, payload) => {
      if (type === FRAME.stdout) {
        // Backpressure: when the SDK reads slowly, stop reading the relay.
        if (!process.stdout.write(payload)) {
          socket.pause();
          process.stdout.once('drain', () => socket.resume());
        }
      } else if (type === FRAME.stderr) process.stderr.write(payload);
      else if (type === FRAME.exit) finish(exitCodeOf(parse(payload)));
      else if (type === FRAME.error) {
        const answer = parse(payload);
        process.stderr.write(`${String(answer.message ?? 'pod-exec relay: the command could not run')}\n`);
        finish(exitCodeOf(answer));
      }
    }),
  );
  socket.on('error', (error) => {
    if (!done) fail(`the relay at ${socketPath} cannot be reached: ${error.message}`, UNREACHABLE);
    done = true;
  });
  socket.on('close', () => {
    if (!done) fail('the relay closed the connection before the command ended', UNREACHABLE);
    done = true;
  });
}

function parse(payload) {
  try {
    const value = JSON.parse(payload.toString('utf8'));
    return typeof value === 'object' && value !== null ? value : {};
  } catch {
    return {};
  }
}

/** `exitCode: null` (the relay could not tell) counts as a failure. */
function exitCodeOf(answer) {
  return Number.isInteger(answer.exitCode) ? answer.exitCode : 1;
}

main();
