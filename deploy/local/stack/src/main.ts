// `npm start`: the whole system in the foreground. A service that exits unasked (a crash, `kill -9`)
// is restarted on its port after a backoff, said on stderr; Ctrl-C (SIGINT) or SIGTERM stops everything.
import { join } from 'node:path';
import { removeStackFile, writeStackFile } from './stackFile.js';
import { startStack, type Stack } from './stack.js';
import { repoRoot } from './paths.js';

function gatewayPortFromEnv(): number {
  const raw = process.env.PORT ?? '8080';
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port < 0 || port > 65535) {
    console.error(`Invalid configuration: PORT must be an integer between 0 and 65535 (got "${raw}")`);
    process.exit(1);
  }
  return port;
}

async function main(): Promise<void> {
  const dataDir = process.env.STACK_DATA_DIR ?? join(repoRoot, '.stack');
  const stateDir = process.env.STACK_STATE_DIR ?? join(repoRoot, '.stack');
  const state: { starting?: Promise<Stack> } = {};
  let stopping = false;
  const shutdown = async (code: number): Promise<void> => {
    if (stopping) return;
    stopping = true;
    console.error('[stack] stopping services and infrastructure…');
    // A signal during start-up waits for start-up to settle, so nothing it started is left behind.
    const stack = await state.starting?.catch(() => undefined);
    await stack?.stop();
    removeStackFile(stateDir);
    console.error('[stack] stopped');
    process.exit(code);
  };
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));

  state.starting = startStack({
    gatewayPort: gatewayPortFromEnv(),
    kafkaBrokers: process.env.KAFKA_BROKERS,
    mongoUrl: process.env.MONGO_URL,
    redisUrl: process.env.REDIS_URL,
    mongoDbpath: dataDir === '' ? undefined : join(dataDir, 'mongo'),
    // Repositories live beside the data that points at them; memory-only stacks get a temporary folder.
    sourceHostDir: process.env.SOURCE_HOST_DIR ?? (dataDir === '' ? undefined : join(dataDir, 'source-host')),
    sandboxRoot: process.env.SANDBOX_ROOT ?? (dataDir === '' ? undefined : join(dataDir, 'sandboxes')),
    // The real CLIs (the sandboxes service's own default), against the model stand-in unless a
    // provider is given; `HARNESS_CLIS=stand-in npm start` runs the scripted stand-in CLIs.
    env: { HARNESS_CLIS: process.env.HARNESS_CLIS ?? 'real' },
    // Tracing on only when a collector is named (README, Tracing).
    ...(process.env.OTEL_EXPORTER_OTLP_ENDPOINT ? { telemetry: { otlpEndpoint: process.env.OTEL_EXPORTER_OTLP_ENDPOINT } } : {}),
  });
  const stack = await state.starting;
  if (stopping) return;
  writeStackFile(stateDir, stack);
  // The services' API ports do not serve /metrics: say where each one's metrics listener is.
  const metrics = Object.values(stack.services).map((service) => `${service.name} ${service.metricsUrl ?? '(none)'}`);
  console.error(`[stack] metrics (loopback): ${metrics.join(', ')}`);
  process.stdout.write(`Agent Run Service is ready at ${stack.baseUrl}\n`);
}

main().catch((error: unknown) => {
  console.error(`[stack] failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
