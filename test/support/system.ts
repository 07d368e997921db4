import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStack, type Stack, type StackTelemetry } from '@ars/stack';
import { testInfrastructure } from '@ars/testenv';

/** The whole system as processes (`startStack`) on the suite's Kafka, MongoDB and Redis. */
export interface System {
  stack: Stack;
  /** The stack's gateway. */
  baseUrl: string;
  internalToken: string;
  mongoUrl: string;
  /** The catalog's local source host: the bare git repositories runs push to. */
  sourceHostDir: string;
  /** The stack gateway's database (users, sessions, PATs). */
  gatewayDb: string;
  /** The stack's gateway as the tests address it. */
  gateway: { baseUrl: string; mongoUrl: string; mongoDb: string };
  stop(): Promise<void>;
}

/** What a suite's system is started with beside `env`. */
export interface SystemOptions {
  /** Telemetry on in every service, exporting to this collector (the stack's `telemetry` option). */
  telemetry?: StackTelemetry;
  /** Every output line of the services (`<service> | <JSON log line>`), at `logLevel` (default `warn`). */
  output?: (line: string) => void;
  logLevel?: string;
}

/** `env`: extra settings for every service (e.g. a short RUN_TIMEOUT_MS). */
export async function startSystem(env: Record<string, string> = {}, options: SystemOptions = {}): Promise<System> {
  const infra = testInfrastructure();
  const internalToken = randomBytes(24).toString('base64url');
  // The catalog's local source host keeps its git repositories here, not in the working tree.
  const sourceHostDir = mkdtempSync(join(tmpdir(), 'ars-test-source-host-'));
  // Kafka and MongoDB of its own (the local stand-ins, started in a moment): two suites' stacks side
  // by side would otherwise share consumer groups (`runs`, `sandboxes`) and databases (`ars_runs`)
  // and take each other's messages. Redis is shared: every key in it is per user or per token.
  const stack = await startStack({
    gatewayPort: 0,
    redisUrl: infra.redisUrl,
    logLevel: options.logLevel ?? (process.env.ARS_TEST_STACK_LOG ? 'info' : 'warn'),
    // ARS_TEST_STACK_LOG=<file>: every service's output appended there (debugging a whole-stack test).
    output: (line) => {
      options.output?.(line);
      if (process.env.ARS_TEST_STACK_LOG) appendFileSync(process.env.ARS_TEST_STACK_LOG, `${line}\n`);
    },
    // The option, not an env value: the stack sets SOURCE_HOST_DIR itself (to a directory of its own when not given).
    sourceHostDir,
    env: { INTERNAL_TOKEN: internalToken, ARS_ENV: 'development', ...env },
    ...(options.telemetry ? { telemetry: options.telemetry } : {}),
  });
  return {
    stack,
    baseUrl: stack.baseUrl,
    internalToken,
    mongoUrl: stack.infrastructure.mongoUrl,
    sourceHostDir,
    gatewayDb: 'ars_gateway',
    gateway: { baseUrl: stack.baseUrl, mongoUrl: stack.infrastructure.mongoUrl, mongoDb: 'ars_gateway' },
    async stop() {
      await stack.stop();
      rmSync(sourceHostDir, { recursive: true, force: true });
    },
  };
}

/**
 * The suite's system: started before its first test, stopped after its last. `env` as for
 * startSystem; `options` read when it starts (a collector started by an earlier `beforeAll` has its
 * URL by then). Returns a getter, since the system exists only once `beforeAll` has run.
 */
export function systemForSuite(env: Record<string, string> = {}, options: () => SystemOptions = () => ({})): () => System {
  let system: System | undefined;
  beforeAll(async () => {
    system = await startSystem(env, options());
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
  }, 60_000);
  return () => {
    if (!system) throw new Error('the system is not started (use it inside tests or hooks)');
    return system;
  };
}
