import { startStack, type Stack } from './stack.js';

/** What a benchmark needs of the system: the gateway it talks to, and how to let go of it. */
export interface BenchStack {
  /** The gateway's origin, e.g. `http://127.0.0.1:4123`. */
  baseUrl: string;
  /** Stops the stack the benchmark started; does nothing to a running system it was given. */
  stop(): Promise<void>;
  /** False on a running system it was given: the `settings` asked for were not applied (that system's are). */
  ownStack: boolean;
  /**
   * The pid of each process the stack started, by name (`gateway`, `catalog`, …, `mongo-dev`,
   * `redis`, `kafka-mock`), read when called (a restarted service has a new one); empty on a
   * running system. Each is its own process group's leader (Redis runs under a small shell).
   */
  pids(): Record<string, number>;
}

/**
 * The system a stack benchmark runs against. With `BENCH_BASE_URL` (the origin of a running
 * gateway in development mode, e.g. the CI's system for the smoke forms in test/benchmarks): that
 * gateway, nothing started and nothing stopped; the benchmarks make their own users through
 * `POST /api/dev/accounts`, so any development-mode system will do. Without it: the whole stack,
 * on the infrastructure named by KAFKA_BROKERS, MONGO_URL and REDIS_URL when set (else its own),
 * the gateway on a free port, quiet (warnings only, not printed), so a benchmark's output is its
 * figures. The one place that choice is made, so every benchmark makes it alike. `settings` are
 * the services' settings the benchmark needs (e.g. `SANDBOX_MAX_SESSIONS`), given to the stack it starts.
 */
export async function startBenchStack(env: NodeJS.ProcessEnv = process.env, settings: Record<string, string> = {}): Promise<BenchStack> {
  if (env.BENCH_BASE_URL) {
    // The origin only: the benchmarks append `/api/...` themselves, and a typo fails here, not as a 404 later.
    return { baseUrl: new URL(env.BENCH_BASE_URL).origin, stop: async () => undefined, ownStack: false, pids: () => ({}) };
  }
  const stack = await startStack({
    gatewayPort: 0,
    kafkaBrokers: env.KAFKA_BROKERS,
    mongoUrl: env.MONGO_URL,
    redisUrl: env.REDIS_URL,
    logLevel: 'warn',
    output: () => undefined,
    // The benchmarks measure the service, not a CLI's start-up: the scripted stand-ins, unless asked otherwise.
    env: { HARNESS_CLIS: env.HARNESS_CLIS ?? 'stand-in', ...settings },
  });
  return { baseUrl: stack.baseUrl, stop: () => stack.stop(), ownStack: true, pids: () => pidsOf(stack) };
}

function pidsOf(stack: Stack): Record<string, number> {
  const pids: Record<string, number> = {};
  for (const service of Object.values(stack.services)) {
    const pid = service.child()?.pid;
    if (pid !== undefined) pids[service.name] = pid;
  }
  const { mongo, redis, kafka } = stack.infrastructure.local;
  if (mongo) pids['mongo-dev'] = mongo.child.pid;
  if (redis) pids.redis = redis.child.pid;
  if (kafka) pids['kafka-mock'] = kafka.child.pid;
  return pids;
}
