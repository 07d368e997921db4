import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSystem, viewOf, type System } from './system.js';

/** The environment variable that hands the host's address to jest's workers. */
export const SHARED_SYSTEM_VARIABLE = 'ARS_TEST_SHARED_SYSTEM';

/**
 * The shared system's settings beside TEST_SYSTEM_SETTINGS. It is not an idle system: suites of both
 * jest workers use it at once, so its sandboxes service takes many sessions at a time (a suite that
 * asserts queueing has a system of its own). The rest shorten the waits of the suites that used to set
 * them for themselves (log flushes, report polls, the automation engine's timers and sweeper); none
 * changes what a rule says, only how soon it is seen.
 */
export const SHARED_SYSTEM_SETTINGS: Readonly<Record<string, string>> = {
  SANDBOX_MAX_SESSIONS: '64',
  SANDBOX_LOG_FLUSH_MS: '200',
  SANDBOX_DEV_READY_TIMEOUT_MS: '30000',
  PR_REVIEW_REPORT_POLL_MS: '200',
  AUTOMATIONS_SWEEP_INTERVAL_MS: '500',
  AUTOMATIONS_CHECK_AFTER_MS: '3000',
  AUTOMATIONS_TIMER_POLL_MS: '100',
};

export interface SharedSystemHost {
  /** Where workers ask for the shared system (`POST <url>/system`). */
  url: string;
  /** Stops the shared system if it was started, then the host. */
  stop(): Promise<void>;
}

/**
 * Runs in jest's main process (global set-up): a loopback HTTP endpoint that starts the shared system
 * the first time a suite asks for it (so a run of unit tests starts none) and answers every suite,
 * from either worker, with its addresses. A failed start is answered to every suite that asks, with
 * its reason, and not tried again: a broken stack would fail the same way for each.
 */
export async function startSharedSystemHost(): Promise<SharedSystemHost> {
  let system: Promise<System> | undefined;
  const answer = (res: ServerResponse, status: number, body: unknown): void => {
    // One request per connection: a kept-alive socket the server times out while a worker reuses it
    // is a request lost ("other side closed"), and each worker asks once per suite, minutes apart.
    res.writeHead(status, { 'content-type': 'application/json', connection: 'close' }).end(JSON.stringify(body));
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    if (req.method !== 'POST' || req.url !== '/system') return answer(res, 404, { error: `no route ${req.method} ${req.url}` });
    system ??= startSystem({ ...SHARED_SYSTEM_SETTINGS });
    system.then(
      (started) => answer(res, 200, viewOf(started)),
      (error: unknown) => answer(res, 500, { error: `the shared system did not start: ${error instanceof Error ? error.message : String(error)}` }),
    );
  });
  // Requests wait for the system's start, however long it takes; the suites' hooks have deadlines.
  server.requestTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      const started = await system?.catch(() => undefined);
      await started?.stop();
    },
  };
}
