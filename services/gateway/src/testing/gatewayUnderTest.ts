import { randomBytes } from 'node:crypto';
import { createLogger } from '@ars/logger';
import { freePort, TEST_ADDRESS_LIMITS, testInfrastructure } from '@ars/testenv';
import { startGateway } from '../index.js';
import { startEmptyPeer, startRunsStandIn, type EmptyPeer, type RunsStandIn } from './peerStandIns.js';

export interface GatewayUnderTest {
  baseUrl: string;
  mongoUrl: string;
  mongoDb: string;
  runs: RunsStandIn;
  /** The services whose internal API is not built yet, by name. */
  peers: Record<'sandboxes' | 'automations-engine' | 'pr-review' | 'mcp-registry', EmptyPeer>;
  stop(): Promise<void>;
}

/**
 * What the gateway under test takes from the running system (`@ars/testenv`'s `SystemView` fits): the
 * internal token its services accept and its catalog's internal API.
 */
export interface RunningSystem {
  internalToken: string;
  stack: { services: { catalog: { url: string } } };
}

export interface GatewayOptions {
  /** The running system whose catalog this gateway composes from. */
  system: RunningSystem;
  /** Another Redis than the suite's (the outage test stops its own). */
  redisUrl?: string;
  /** Another gateway's database, to be two instances of one deployment (a database of its own by default). */
  mongoDb?: string;
  env?: Record<string, string>;
}

/**
 * A second gateway, in-process on a free port, for what the stack's own cannot show: its own
 * configuration (session lifetime, trusted proxy, production, a Redis the test stops) and the run
 * starts (a stand-in of runs' start API records what the gateway sends). It
 * composes from the system's real catalog, over the suite's MongoDB (a database of its own), Kafka
 * and Redis; the other services are stand-ins without routes. Tests talk to it by HTTP only.
 */
export async function startGatewayUnderTest(options: GatewayOptions): Promise<GatewayUnderTest> {
  const infra = testInfrastructure();
  const internalToken = options.system.internalToken;
  const runs = await startRunsStandIn(internalToken);
  const peers = {
    sandboxes: await startEmptyPeer(),
    'automations-engine': await startEmptyPeer(),
    'pr-review': await startEmptyPeer(),
    // The development account route asks mcp-registry for its example tool servers.
    'mcp-registry': await startEmptyPeer([{ call: /^POST \/internal\/dev\/users\/[^/]+\/mcp-servers\/examples$/, status: 201, data: { servers: [] } }]),
  };
  const empty = Object.values(peers).map((p) => p.server);
  const port = await freePort();
  const mongoDb = options.mongoDb ?? `ars_gateway_test_${randomBytes(6).toString('hex')}`;
  const running = await startGateway({
    env: {
      ...TEST_ADDRESS_LIMITS,
      PORT: String(port),
      MONGO_URL: infra.mongoUrl,
      MONGO_DB: mongoDb,
      KAFKA_BROKERS: infra.kafkaBrokers.join(','),
      REDIS_URL: options.redisUrl ?? infra.redisUrl,
      INTERNAL_TOKEN: internalToken,
      ARS_ENV: 'test',
      LOG_LEVEL: 'silent',
      CATALOG_URL: options.system.stack.services.catalog.url,
      RUNS_URL: runs.server.url,
      SANDBOXES_URL: peers.sandboxes.server.url,
      AUTOMATIONS_ENGINE_URL: peers['automations-engine'].server.url,
      PR_REVIEW_URL: peers['pr-review'].server.url,
      MCP_REGISTRY_URL: peers['mcp-registry'].server.url,
      ...options.env,
    },
    handleSignals: false,
    exit: () => undefined,
    logger: createLogger({ service: 'gateway', level: 'silent' }),
  });
  return {
    baseUrl: running.url,
    mongoUrl: infra.mongoUrl,
    mongoDb,
    runs,
    peers,
    async stop() {
      await running.shutdown('test done');
      await Promise.all([runs.server.close(), ...empty.map((s) => s.close())]);
    },
  };
}
