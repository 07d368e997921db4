#!/usr/bin/env node
// `npm start -w deploy/local/model-stand-in` (or `node deploy/local/model-stand-in/dist/main.js`):
// listens on MODEL_STAND_IN_PORT (0 or unset: any free port) of MODEL_STAND_IN_HOST (default
// 127.0.0.1). Prints one JSON line on stdout once it accepts connections; logs go to stderr.
import { startModelStandIn } from './server.js';

const log = (line: string): void => {
  process.stderr.write(`[model-stand-in] ${line}\n`);
};

async function main(): Promise<void> {
  const rawPort = process.env.MODEL_STAND_IN_PORT ?? '0';
  const port = Number(rawPort);
  if (!/^\d+$/.test(rawPort) || port > 65535) throw new Error(`MODEL_STAND_IN_PORT must be a port number (0: any), got ${rawPort}`);
  const server = await startModelStandIn({ port, host: process.env.MODEL_STAND_IN_HOST ?? '127.0.0.1', log });
  process.stdout.write(
    `${JSON.stringify({ modelStandIn: 'listening', url: server.url, port: server.port, openaiBaseUrl: server.openaiBaseUrl, anthropicBaseUrl: server.url })}\n`,
  );
  log(`listening on ${server.url} (OpenAI base URL ${server.openaiBaseUrl}, Anthropic base URL ${server.url})`);

  let stopping = false;
  const stop = (reason: string): void => {
    if (stopping) return;
    stopping = true;
    log(`${reason}: closing`);
    void server.close().then(() => process.exit(0));
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // Under the local stack (its own process group): stop when the stack dies and our stdin closes.
  if (process.env.ARS_EXIT_WITH_PARENT === 'stdin' && !process.stdin.isTTY) {
    process.stdin.on('end', () => stop('stdin closed (parent exited)'));
    process.stdin.resume();
  }
}

main().catch((error: unknown) => {
  log(`failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
