// CLI: `npm run --silent mongo-dev -- --port 27017 [--host 127.0.0.1] [--dbpath /tmp/x]`.
// Prints one JSON line on stdout once it accepts connections; logs go to stderr.
import { parseArgs } from 'node:util';
import { startMongoDevServer } from './server.js';

const log = (line: string): void => {
  process.stderr.write(`[mongo-dev] ${line}\n`);
};

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '27017' },
      host: { type: 'string', default: '127.0.0.1' },
      dbpath: { type: 'string' },
    },
    strict: true,
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number, got ${values.port}`);
  const server = await startMongoDevServer({ port, host: values.host, dbpath: values.dbpath, log });
  process.stdout.write(`${JSON.stringify({ mongoDev: 'listening', url: server.url, port: server.port })}\n`);
  log(`listening on ${server.url}${values.dbpath ? ` with dbpath ${values.dbpath}` : ' (memory only)'}`);

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: closing`);
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        log(`close failed: ${(error as Error).message}`);
        process.exit(1);
      },
    );
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
  log(`failed to start: ${(error as Error).message}`);
  process.exit(1);
});
