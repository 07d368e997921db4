// `runs.wait()`: the polling way to see a run end (CONTRACT.md, GET /runs/{runId}/events: poll,
// de-duplicate by id, stop at success, failed or cancelled; 1.5 s and 1800 s by default).
import { TERMINAL_STATUSES } from './runStatus.js';
import { ArsApiError } from './errors.js';
import { sleep } from './sleep.js';
import type { Run, RunEvent, RunEventsData } from './types.js';

/** The largest page the events route gives (CONTRACT.md, Limits): a full page means there may be more. */
export const EVENTS_PAGE = 200;

export interface WaitOptions {
  /** Between two polls while nothing is left to read (default 1500). */
  intervalMs?: number;
  /** Overall; then the call fails with code TIMEOUT (default 1 800 000). */
  timeoutMs?: number;
  /** Called once per event, oldest first, as the events are read. */
  onEvent?: (event: RunEvent) => void;
  signal?: AbortSignal;
}

type ReadPage = (query: { limit: number; after?: string }, signal?: AbortSignal) => Promise<RunEventsData>;

export async function waitForRun(runId: string, readPage: ReadPage, options: WaitOptions = {}): Promise<{ run: Run; events: RunEvent[] }> {
  const intervalMs = options.intervalMs ?? 1_500;
  const deadline = Date.now() + (options.timeoutMs ?? 1_800_000);
  const seen = new Set<string>();
  const events: RunEvent[] = [];
  for (;;) {
    const after = events.at(-1)?.id;
    const page = await readPage({ limit: EVENTS_PAGE, ...(after === undefined ? {} : { after }) }, options.signal);
    for (const event of page.events) {
      if (seen.has(event.id)) continue;
      seen.add(event.id);
      events.push(event);
      options.onEvent?.(event);
    }
    // A full page: more may follow at once (even of a run that has ended).
    if (page.events.length >= EVENTS_PAGE) continue;
    if (TERMINAL_STATUSES.has(page.run.status)) return { run: page.run, events };
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new ArsApiError({
        code: 'TIMEOUT',
        status: 0,
        message: `Run ${runId} did not end within ${options.timeoutMs ?? 1_800_000} ms (status ${page.run.status}, ${events.length} events read)`,
      });
    }
    await sleep(Math.min(intervalMs, left), options.signal);
  }
}
