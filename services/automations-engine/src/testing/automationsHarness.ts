// Test support (not built into dist/): the automations engine run in-process against the suite's
// MongoDB and Kafka (its own database per harness) with a real in-process catalog for
// installations, agents and models.
import { randomBytes } from 'node:crypto';
import { startCatalogHarness, type CatalogHarness } from '@ars/catalog/testing';
import { startRunsHarness, type RunsHarness } from '@ars/runs/testing';
import type { Agent, Model } from '@ars/contract';
import { createLogger } from '@ars/logger';
import type { Db } from '@ars/mongo';
import { freePort, internalCaller, testInfrastructure, type Answer, type InternalCall } from '@ars/testenv';
import { startAutomationsEngine, type RunningAutomationsEngine } from '../automationsEngine.js';
import type { FlowGraph } from '../domain/flowGraph.js';

export interface AutomationTenant {
  userId: string;
  /** The user's dev installation. */
  installationId: number;
  repoIds: string[];
  /** One of the user's agents (a preset). */
  agentId: string;
  /** A model the user may use (`GET /models`). */
  modelId: string;
}

export interface AutomationsHarness {
  url: string;
  token: string;
  service: RunningAutomationsEngine;
  db: Db;
  catalog: CatalogHarness;
  /** The runs service in-process (with `{runs: true}`): agent runs start there; the test finishes them (`runs.finish`). */
  runs: RunsHarness | undefined;
  logLines: string[];
  /** An internal route with the harness's token, as `automations-test`. */
  call: InternalCall;
  /** A call to `/internal/users/<userId>/automations<path>`, as the gateway forwards one. */
  automations<T = Record<string, unknown>>(userId: string, method: string, path?: string, body?: unknown): Promise<Answer<T>>;
  /** A fresh tenant: a new user with a dev installation, one of its agents and one of its models. */
  newTenant(): Promise<AutomationTenant>;
  stop(): Promise<void>;
}

/** start → agent (bound to `agentId`) → end: a graph that publishes. */
export function publishableGraph(agentId: string, agentData: Record<string, unknown> = {}): FlowGraph {
  return {
    nodes: [
      { id: 'start', type: 'start', position: { x: 0, y: 0 }, data: {} },
      { id: 'agent', type: 'agent', position: { x: 250, y: 0 }, data: { agentId, prompt: 'Fix the failing test.', ...agentData } },
      { id: 'end', type: 'end', position: { x: 500, y: 0 }, data: {} },
    ],
    edges: [
      { id: 'start-agent', source: 'start', target: 'agent' },
      { id: 'agent-end', source: 'agent', target: 'end' },
    ],
    viewport: { x: 0, y: 0, zoom: 1 },
  };
}

export interface AutomationsHarnessOptions {
  /** Start the runs service too (its own catalog serves both): needed to run automations. */
  runs?: boolean;
  env?: Record<string, string>;
}

/** Nothing listens there: a harness without runs never starts an agent run. */
const NO_RUNS_URL = 'http://127.0.0.1:9';

export async function startAutomationsHarness(options: AutomationsHarnessOptions = {}): Promise<AutomationsHarness> {
  const infra = testInfrastructure();
  const runs = options.runs ? await startRunsHarness() : undefined;
  const catalog = runs?.catalog ?? (await startCatalogHarness());
  const token = catalog.token;
  const logLines: string[] = [];
  const logger = createLogger({ service: 'automations-engine', level: 'debug', destination: { write: (line: string) => void logLines.push(line) } });
  const service = await startAutomationsEngine({
    handleSignals: false,
    exit: () => undefined,
    logger,
    env: {
      PORT: String(await freePort()),
      MONGO_URL: infra.mongoUrl,
      MONGO_DB: `automations_test_${randomBytes(6).toString('hex')}`,
      KAFKA_BROKERS: infra.kafkaBrokers.join(','),
      INTERNAL_TOKEN: token,
      CATALOG_URL: catalog.url,
      RUNS_URL: runs?.url ?? NO_RUNS_URL,
      AUTOMATIONS_CONSUMER_GROUP: `automations-test-${randomBytes(6).toString('hex')}`,
      AUTOMATIONS_TIMER_POLL_MS: '100',
      AUTOMATIONS_SWEEP_INTERVAL_MS: '500',
      AUTOMATIONS_CHECK_AFTER_MS: '3000',
      ...options.env,
    },
  });
  const db = service.context.mongo?.db;
  if (!db) throw new Error('the automations engine started without MongoDB');
  const call = internalCaller({ url: service.url, token, caller: 'automations-test' });

  return {
    url: service.url,
    token,
    service,
    db,
    catalog,
    runs,
    logLines,
    call,
    automations: (userId, method, path = '', body) => call(method, `/internal/users/${encodeURIComponent(userId)}/automations${path}`, body),
    async newTenant() {
      const userId = catalog.newUser();
      const dev = await catalog.devInstallation(userId);
      const user = `/internal/users/${encodeURIComponent(userId)}`;
      const [agents, models] = await Promise.all([
        catalog.call<{ agents: Agent[] }>('GET', `${user}/agents`),
        catalog.call<{ models: Model[] }>('GET', `${user}/models`),
      ]);
      const agentId = agents.data.agents[0]?.id;
      const modelId = models.data.models[0]?.id;
      if (!agentId || !modelId) throw new Error('a new user has no agent or no model');
      return { userId, installationId: dev.installation.id, repoIds: dev.repos.map((repo) => repo.id), agentId, modelId };
    },
    async stop() {
      await service.shutdown('test over');
      if (runs) await runs.stop();
      else await catalog.stop();
    },
  };
}
