// The two ways a test file gets the whole system: the run's shared one (the default) or one of its
// own. Both register the file's jest hooks and answer a getter, since the system exists only once
// `beforeAll` has run.
import { SHARED_SYSTEM_VARIABLE } from './sharedSystemHost.js';
import { startSystem, type System, type SystemOptions, type SystemView } from './system.js';

/** jest's hooks, as the globals jest puts in a test file's scope. */
interface SuiteHooks {
  beforeAll(fn: () => Promise<void>, timeoutMs?: number): void;
  afterAll(fn: () => Promise<void>, timeoutMs?: number): void;
}

/**
 * Read when a suite calls for a system, not imported: the package is also loaded outside jest (the
 * benchmarks take `sseItems` from it, the global set-up its host), where `@jest/globals` throws.
 */
function suiteHooks(): SuiteHooks {
  const scope = globalThis as Partial<SuiteHooks>;
  if (typeof scope.beforeAll !== 'function' || typeof scope.afterAll !== 'function') {
    throw new Error('sharedSystem() and ownSystem() register jest hooks: call them in a test file');
  }
  return scope as SuiteHooks;
}

/** The first suite to ask waits for the start of the whole stack on a busy machine. */
const SHARED_START_TIMEOUT_MS = 240_000;

/**
 * The jest run's shared system, started by the first suite that asks for it and stopped when the run
 * ends. Other suites use it at the same time, so a test makes its own tenant (user, repositories,
 * PATs) and reads only what is that tenant's: nothing on it is idle or counted from zero.
 */
export function sharedSystem(): () => SystemView {
  let view: SystemView | undefined;
  suiteHooks().beforeAll(async () => {
    view = await askSharedSystem();
  }, SHARED_START_TIMEOUT_MS);
  return () => {
    if (!view) throw new Error('the shared system is not there yet (use it inside tests or hooks)');
    return view;
  };
}

async function askSharedSystem(env: NodeJS.ProcessEnv = process.env): Promise<SystemView> {
  const host = env[SHARED_SYSTEM_VARIABLE];
  if (!host) {
    throw new Error(
      env.ARS_TEST_INFRA === 'off'
        ? 'This test needs the shared system, but ARS_TEST_INFRA=off skipped the test infrastructure'
        : env.ARS_TEST_INFRA_ERROR
          ? `This test needs the shared system, whose infrastructure could not be started: ${env.ARS_TEST_INFRA_ERROR}`
          : 'No shared system: run tests with `npm test` or `npm run test:jest` (jest global set-up offers it)',
    );
  }
  const response = await fetch(`${host}/system`, { method: 'POST', signal: AbortSignal.timeout(SHARED_START_TIMEOUT_MS) });
  const body = (await response.json()) as SystemView | { error: string };
  if ('error' in body) throw new Error(body.error);
  return body;
}

/**
 * A system of the suite's own: started before its first test, stopped after its last. Only for a
 * suite the shared system cannot serve, and `why` says which of test/README.md's reasons it is (it
 * kills or restarts processes, changes a service's settings, counts something global, or tests a
 * per-address limit or queueing). `env` as for startSystem; `options` read when it starts (a
 * collector started by an earlier `beforeAll` has its URL by then).
 */
export function ownSystem(why: string, env: Record<string, string> = {}, options: () => SystemOptions = () => ({})): () => System {
  if (why.trim().length === 0) throw new Error('ownSystem: say why the shared system cannot serve this suite');
  let system: System | undefined;
  const hooks = suiteHooks();
  hooks.beforeAll(async () => {
    system = await startSystem(env, options());
  }, 120_000);
  hooks.afterAll(async () => {
    await system?.stop();
  }, 60_000);
  return () => {
    if (!system) throw new Error('the system is not started (use it inside tests or hooks)');
    return system;
  };
}
