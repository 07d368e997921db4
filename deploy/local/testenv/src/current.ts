export interface CurrentInfrastructure {
  kafkaBrokers: string[];
  mongoUrl: string;
  redisUrl: string;
}

/**
 * The infrastructure jest's global set-up started for this run (handed to test workers through the
 * environment). Throws when a test needing it runs outside `npm test`.
 */
export function testInfrastructure(env: NodeJS.ProcessEnv = process.env): CurrentInfrastructure {
  const kafka = env.ARS_TEST_KAFKA_BROKERS;
  const mongoUrl = env.ARS_TEST_MONGO_URL;
  const redisUrl = env.ARS_TEST_REDIS_URL;
  if (!kafka || !mongoUrl || !redisUrl) {
    throw new Error(
      env.ARS_TEST_INFRA === 'off'
        ? 'This test needs Kafka, MongoDB and Redis, but ARS_TEST_INFRA=off skipped them'
        : env.ARS_TEST_INFRA_ERROR
          ? `This test needs Kafka, MongoDB and Redis, which could not be started: ${env.ARS_TEST_INFRA_ERROR}`
          : 'No test infrastructure: run tests with `npm test` or `npm run test:jest` (jest global set-up starts it)',
    );
  }
  return { kafkaBrokers: kafka.split(','), mongoUrl, redisUrl };
}
