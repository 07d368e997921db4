import { startInfrastructure } from '@ars/stack';
import { dockerEngineReachable } from './dockerEngine.js';

export type InfrastructureSource = 'given' | 'testcontainers' | 'local';

export interface TestInfrastructure {
  kafkaBrokers: string[];
  mongoUrl: string;
  redisUrl: string;
  /** Where each server came from, for the log line and for tests that need a local one (fault injection). */
  sources: { kafka: InfrastructureSource; mongo: InfrastructureSource; redis: InfrastructureSource };
  stop(): Promise<void>;
}

/**
 * The one way tests get Kafka, MongoDB and Redis: `KAFKA_BROKERS`/`MONGO_URL`/`REDIS_URL` when given,
 * otherwise containers when a Docker engine is reachable, otherwise the local stack's own stand-ins
 * (librdkafka's mock cluster, the MongoDB-wire development server, Debian's redis-server).
 */
export async function startTestInfrastructure(env: NodeJS.ProcessEnv = process.env): Promise<TestInfrastructure> {
  const given = { kafka: env.KAFKA_BROKERS, mongo: env.MONGO_URL, redis: env.REDIS_URL };
  const missing = !given.kafka || !given.mongo || !given.redis;
  if (missing && (await dockerEngineReachable())) {
    const { startContainers } = await import('./containers.js');
    return startContainers(given);
  }
  const quiet = (): void => undefined;
  const infrastructure = await startInfrastructure({
    kafkaBrokers: given.kafka,
    mongoUrl: given.mongo,
    redisUrl: given.redis,
    output: env.TEST_INFRA_LOGS === '1' ? undefined : quiet,
  });
  return {
    kafkaBrokers: infrastructure.kafkaBrokers,
    mongoUrl: infrastructure.mongoUrl,
    redisUrl: infrastructure.redisUrl,
    sources: { kafka: given.kafka ? 'given' : 'local', mongo: given.mongo ? 'given' : 'local', redis: given.redis ? 'given' : 'local' },
    stop: () => infrastructure.stop(),
  };
}
