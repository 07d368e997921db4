import type { TestInfrastructure } from './infrastructure.js';

/** Real Kafka, MongoDB and Redis in containers, for machines with a Docker engine. Loaded only there. */
export async function startContainers(given: { kafka?: string; mongo?: string; redis?: string }): Promise<TestInfrastructure> {
  const [{ KafkaContainer }, { MongoDBContainer }, { RedisContainer }] = await Promise.all([
    import('@testcontainers/kafka'),
    import('@testcontainers/mongodb'),
    import('@testcontainers/redis'),
  ]);
  const [kafka, mongo, redis] = await Promise.all([
    given.kafka ? undefined : new KafkaContainer('confluentinc/cp-kafka:7.7.1').withKraft().start(),
    given.mongo ? undefined : new MongoDBContainer('mongo:8.0').start(),
    given.redis ? undefined : new RedisContainer('redis:7.4').start(),
  ]);
  return {
    kafkaBrokers: kafka ? [`${kafka.getHost()}:${kafka.getMappedPort(9093)}`] : (given.kafka ?? '').split(','),
    mongoUrl: mongo ? `${mongo.getConnectionString()}?directConnection=true` : (given.mongo ?? ''),
    redisUrl: redis ? redis.getConnectionUrl() : (given.redis ?? ''),
    sources: {
      kafka: kafka ? 'testcontainers' : 'given',
      mongo: mongo ? 'testcontainers' : 'given',
      redis: redis ? 'testcontainers' : 'given',
    },
    stop: async () => {
      await Promise.all([kafka?.stop(), mongo?.stop(), redis?.stop()]);
    },
  };
}
