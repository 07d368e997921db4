import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStack, type ServiceName, type Stack, type StackTelemetry } from '@ars/stack';
import { testInfrastructure } from './current.js';

/**
 * What a test reads of a running system: its addresses and internal token, never its processes. A
 * suite on the shared system gets only this; a system of a suite's own (`System`) is also this.
 */
export interface SystemView {
  /** The stack's gateway. */
  baseUrl: string;
  internalToken: string;
  mongoUrl: string;
  kafkaBrokers: string[];
  /** The catalog's local source host: the bare git repositories runs push to. */
  sourceHostDir: string;
  /** The stack gateway's database (users, sessions, PATs). */
  gatewayDb: string;
  /** The stack's gateway as the tests address it. */
  gateway: { baseUrl: string; mongoUrl: string; mongoDb: string };
  /** Every service's address (`stack.services.catalog.url`). */
  stack: { services: Record<ServiceName, { url: string }> };
}

/** The whole system as processes (`startStack`) on the run's Redis and a Kafka and MongoDB of its own. */
export interface System extends SystemView {
  /** The processes: a suite with a system of its own may stop, kill and restart them. */
  stack: Stack;
  stop(): Promise<void>;
}

/** What a system is started with beside `env`. */
export interface SystemOptions {
  /** Telemetry on in every service, exporting to this collector (the stack's `telemetry` option). */
  telemetry?: StackTelemetry;
  /** Every output line of the services (`<service> | <JSON log line>`), at `logLevel` (default `warn`). */
  output?: (line: string) => void;
  logLevel?: string;
  /** The gateway's port, when an outside party must know its URL before it starts (a GitHub App's callback URLs); default any free one. */
  gatewayPort?: number;
}

/**
 * Every system of a jest run shares its Redis, and every test speaks
 * from 127.0.0.1, so the per-client-address limits count the whole run's requests: raised far above
 * what the run sends. A test of such a limit uses a Redis of its own (`startRedis` of
 * `@ars/gateway/testing`) and sets the limit it tests.
 */
export const TEST_ADDRESS_LIMITS: Readonly<Record<string, string>> = {
  OAUTH_REGISTRATIONS_PER_HOUR: '10000',
  CLI_TOKEN_EXCHANGES_PER_MINUTE: '10000',
  MCP_FAILED_AUTH_PER_MINUTE: '10000',
};

/** Settings of every test system (a gateway in a test's process takes TEST_ADDRESS_LIMITS too). */
/**
 * Every test system: development, the per-address limits raised, and the stand-in CLIs (scripted, no
 * model: the fast part of the suite; the real CLIs have their own suite, test/realAgents).
 */
export const TEST_SYSTEM_SETTINGS: Readonly<Record<string, string>> = { ARS_ENV: 'development', HARNESS_CLIS: 'stand-in', ...TEST_ADDRESS_LIMITS };

/** `env`: settings for every service beside TEST_SYSTEM_SETTINGS (e.g. a short RUN_TIMEOUT_MS). */
export async function startSystem(env: Record<string, string> = {}, options: SystemOptions = {}): Promise<System> {
  const infra = testInfrastructure();
  const internalToken = randomBytes(24).toString('base64url');
  // The catalog's local source host keeps its git repositories here, not in the working tree.
  const sourceHostDir = mkdtempSync(join(tmpdir(), 'ars-test-source-host-'));
  // Kafka and MongoDB of its own (the local stand-ins, started in a moment): two systems side by side
  // would otherwise share consumer groups (`runs`, `sandboxes`) and databases (`ars_runs`) and take
  // each other's messages. Redis is shared: every key in it is per user, per token or per address.
  const stack = await startStack({
    gatewayPort: options.gatewayPort ?? 0,
    redisUrl: infra.redisUrl,
    logLevel: options.logLevel ?? (process.env.ARS_TEST_STACK_LOG ? 'info' : 'warn'),
    // ARS_TEST_STACK_LOG=<file>: every service's output appended there (debugging a whole-stack test).
    output: (line) => {
      options.output?.(line);
      if (process.env.ARS_TEST_STACK_LOG) appendFileSync(process.env.ARS_TEST_STACK_LOG, `${line}\n`);
    },
    // The option, not an env value: the stack sets SOURCE_HOST_DIR itself (to a directory of its own when not given).
    sourceHostDir,
    env: { ...TEST_SYSTEM_SETTINGS, INTERNAL_TOKEN: internalToken, ...env },
    ...(options.telemetry ? { telemetry: options.telemetry } : {}),
  });
  const mongoUrl = stack.infrastructure.mongoUrl;
  return {
    stack,
    baseUrl: stack.baseUrl,
    internalToken,
    mongoUrl,
    kafkaBrokers: stack.infrastructure.kafkaBrokers,
    sourceHostDir,
    gatewayDb: 'ars_gateway',
    gateway: { baseUrl: stack.baseUrl, mongoUrl, mongoDb: 'ars_gateway' },
    async stop() {
      await stack.stop();
      rmSync(sourceHostDir, { recursive: true, force: true });
    },
  };
}

/** The readable part of a system, as plain data (what the shared system's host hands to the workers). */
export function viewOf(system: System): SystemView {
  const services = Object.fromEntries(Object.entries(system.stack.services).map(([name, service]) => [name, { url: service.url }]));
  return {
    baseUrl: system.baseUrl,
    internalToken: system.internalToken,
    mongoUrl: system.mongoUrl,
    kafkaBrokers: system.kafkaBrokers,
    sourceHostDir: system.sourceHostDir,
    gatewayDb: system.gatewayDb,
    gateway: system.gateway,
    stack: { services: services as SystemView['stack']['services'] },
  };
}
