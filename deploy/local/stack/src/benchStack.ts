import { startStack, type Stack } from './stack.js';

/**
 * The whole stack for a benchmark: on the infrastructure named by KAFKA_BROKERS, MONGO_URL and
 * REDIS_URL when set (else its own), the gateway on a free port, quiet (warnings only, not printed),
 * so a benchmark's output is its figures.
 */
export function startBenchStack(env: NodeJS.ProcessEnv = process.env): Promise<Stack> {
  return startStack({
    gatewayPort: 0,
    kafkaBrokers: env.KAFKA_BROKERS,
    mongoUrl: env.MONGO_URL,
    redisUrl: env.REDIS_URL,
    logLevel: 'warn',
    output: () => undefined,
  });
}
