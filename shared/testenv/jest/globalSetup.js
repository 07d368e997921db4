// Starts the test infrastructure once per jest run; workers inherit its addresses through the
// environment. Plain JS on the built package: jest loads global set-up outside its module system.
import { startTestInfrastructure } from '@ars/testenv';

export default async function globalSetup() {
  const infrastructure = await startTestInfrastructure();
  globalThis.__arsTestInfrastructure = infrastructure;
  process.env.ARS_TEST_KAFKA_BROKERS = infrastructure.kafkaBrokers.join(',');
  process.env.ARS_TEST_MONGO_URL = infrastructure.mongoUrl;
  process.env.ARS_TEST_REDIS_URL = infrastructure.redisUrl;
  const { kafka, mongo, redis } = infrastructure.sources;
  console.error(
    `\n[testenv] kafka (${kafka}) ${process.env.ARS_TEST_KAFKA_BROKERS}; mongo (${mongo}) ${infrastructure.mongoUrl}; redis (${redis}) ${infrastructure.redisUrl}`,
  );
}
