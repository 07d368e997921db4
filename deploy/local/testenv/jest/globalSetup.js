// Starts the test infrastructure once per jest run, and offers the shared system (started by the
// first suite that asks for it); workers inherit their addresses through the environment. Plain JS on
// the built package: jest loads global set-up outside its module system.
import { SHARED_SYSTEM_VARIABLE, startSharedSystemHost, startTestInfrastructure } from '@ars/testenv/jest-host';

export default async function globalSetup() {
  // Quick runs of tests that need no servers: ARS_TEST_INFRA=off npm run test:jest -- <path>
  if (process.env.ARS_TEST_INFRA === 'off') return;
  let infrastructure;
  try {
    infrastructure = await startTestInfrastructure();
  } catch (error) {
    // Tests that need no servers still run; each test that needs them fails, naming this reason.
    process.env.ARS_TEST_INFRA_ERROR = error instanceof Error ? error.message : String(error);
    console.error(`\n[testenv] could not start the test infrastructure: ${process.env.ARS_TEST_INFRA_ERROR}`);
    return;
  }
  globalThis.__arsTestInfrastructure = infrastructure;
  process.env.ARS_TEST_KAFKA_BROKERS = infrastructure.kafkaBrokers.join(',');
  process.env.ARS_TEST_MONGO_URL = infrastructure.mongoUrl;
  process.env.ARS_TEST_REDIS_URL = infrastructure.redisUrl;
  const { kafka, mongo, redis } = infrastructure.sources;
  console.error(
    `\n[testenv] kafka (${kafka}) ${process.env.ARS_TEST_KAFKA_BROKERS}; mongo (${mongo}) ${infrastructure.mongoUrl}; redis (${redis}) ${infrastructure.redisUrl}`,
  );
  // Nothing starts here: the host starts the shared system when a suite first asks for it.
  const host = await startSharedSystemHost();
  globalThis.__arsSharedSystemHost = host;
  process.env[SHARED_SYSTEM_VARIABLE] = host.url;
}
