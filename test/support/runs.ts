// Runs through the public API, as a client would: start, poll the events (de-duplicated by id) until
// the run is terminal, and read the source repository a run pushed to.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { RUN_FIELDS, type Run, type RunEvent } from '@ars/contract';
import { waitFor } from '@ars/testenv';
import { bearer, call, createAccount, createToken, dataOf, type Account, type Answer } from './accounts.js';
import { hostPid } from './processTree.js';

const exec = promisify(execFile);

// The public Run and RunEvent are the contract package's (CONTRACT.md, Run, Run event); named here for the system tests.
export { RUN_FIELDS };
export type { Run, RunEvent };

export const TERMINAL = new Set(['success', 'failed', 'cancelled']);

/**
 * One user's client. Each PAT may make 60 requests a minute, so a client that polls holds several
 * and takes them in turn (`token` is the first: the one to use for single requests).
 */
export class RunsClient {
  readonly api: string;
  readonly token: string;
  private turn = 0;
  constructor(
    baseUrl: string,
    private readonly tokens: readonly string[],
  ) {
    this.api = `${baseUrl}/api/v1/svc`;
    this.token = tokens[0] ?? '';
  }

  private nextToken(): string {
    this.turn = (this.turn + 1) % this.tokens.length;
    return this.tokens[this.turn] ?? this.token;
  }

  start(body: Record<string, unknown>, key: string): Promise<Answer<Run & { replayed: boolean }>> {
    return call(`${this.api}/runs`, { method: 'POST', headers: { ...bearer(this.token), 'idempotency-key': key }, json: body });
  }

  async started(body: Record<string, unknown>, key = `k-${Math.random().toString(36).slice(2)}`): Promise<Run & { replayed: boolean }> {
    return dataOf(await this.start(body, key));
  }

  get(runId: string): Promise<Answer<{ run: Run }>> {
    return call(`${this.api}/runs/${encodeURIComponent(runId)}`, { headers: bearer(this.token) });
  }

  events(runId: string, limit?: number | string): Promise<Answer<{ run: Run; events: RunEvent[] }>> {
    const query = limit === undefined ? '' : `?limit=${encodeURIComponent(String(limit))}`;
    return call(`${this.api}/runs/${encodeURIComponent(runId)}/events${query}`, { headers: bearer(this.nextToken()) });
  }

  /** `GET …/events?after=&limit=`: the page after an event (all from the first without `after`). */
  eventsAfter(runId: string, after: string | undefined, limit = 200): Promise<Answer<{ run: Run; events: RunEvent[] }>> {
    const query = new URLSearchParams({ limit: String(limit), ...(after === undefined ? {} : { after }) });
    return call(`${this.api}/runs/${encodeURIComponent(runId)}/events?${query.toString()}`, { headers: bearer(this.nextToken()) });
  }

  cancel(runId: string): Promise<Answer<{ run: Run; status: string; alreadyTerminal: boolean }>> {
    return call(`${this.api}/runs/${encodeURIComponent(runId)}/cancel`, { method: 'POST', headers: bearer(this.token) });
  }

  /**
   * Polls the events as the reference client does (de-duplicated by id) until `until` holds for the
   * run and what was seen, and returns every status observed on the way.
   */
  async waitFor(
    runId: string,
    until: (run: Run, events: RunEvent[]) => boolean = (run) => TERMINAL.has(run.status),
    timeoutMs = 45_000,
  ): Promise<{ run: Run; events: RunEvent[]; statuses: string[] }> {
    const seen = new Map<string, RunEvent>();
    const statuses: string[] = [];
    const settled = async (): Promise<{ run: Run; events: RunEvent[]; statuses: string[] } | undefined> => {
      const { run, events } = dataOf(await this.events(runId, 200));
      for (const event of events) if (!seen.has(event.id)) seen.set(event.id, event);
      if (statuses.at(-1) !== run.status) statuses.push(run.status);
      const all = [...seen.values()];
      return until(run, all) ? { run, events: all, statuses } : undefined;
    };
    const lastSeen = (): string => {
      const all = [...seen.values()];
      return `run ${runId} (still ${statuses.at(-1) ?? 'unread'}; ${all.length} events: ${all.map((e) => e.type).join(', ')})`;
    };
    // The polls take turns over the PATs, each PAT polled at most 50 times a minute: under the 60 in
    // any 60 s a PAT may make, with room for the starts and reads the first one also makes.
    const intervalMs = Math.max(250, Math.ceil(1_200 / Math.max(1, this.tokens.length)));
    return waitFor(lastSeen, settled, { timeoutMs, intervalMs });
  }
}

/** A brand-new account (its own run-start budget) with a client holding `tokenCount` read+write PATs. */
export async function newRunsUser(baseUrl: string, tokenCount = 5): Promise<{ runs: RunsClient; account: Account; repoId: string }> {
  const account = await createAccount(baseUrl);
  const tokens = await Promise.all(Array.from({ length: tokenCount }, (_, i) => createToken(baseUrl, account, { name: `runs-${i}` })));
  return {
    runs: new RunsClient(
      baseUrl,
      tokens.map((t) => t.token),
    ),
    account,
    repoId: account.repos[0]?.id ?? '',
  };
}

/** The bare repository behind a repo of the local source host (its clone URL, asked of the catalog). */
export async function sourceRepositoryPath(catalogUrl: string, internalToken: string, account: Account, repoId: string): Promise<string> {
  const answer = await call<{ repo: { clone_url: string } }>(
    `${catalogUrl}/internal/users/${encodeURIComponent(account.userId)}/repos/${encodeURIComponent(repoId)}`,
    { headers: { 'x-internal-token': internalToken, 'x-caller-service': 'tests' } },
  );
  return fileURLToPath(dataOf(answer).repo.clone_url);
}

export async function git(args: string[], cwd?: string): Promise<string> {
  const { stdout } = await exec('git', args, { cwd, encoding: 'utf8' });
  return stdout;
}

/** True while a process with this pid exists. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The pid (as the host sees it) a shell printed as `<name>=$PID cwd=$PWD`: `@shell echo harness-pid=$PPID cwd=$PWD`
 * (the shell's parent is the harness CLI), `@shell sleep 60 & echo left-pid=$! cwd=$PWD`. Read it while the process lives.
 */
export function reportedPid(events: RunEvent[], name: string): number | undefined {
  for (const event of events) {
    const match = new RegExp(`${name}=(\\d+) cwd=([^\\s"\\\\]+)`).exec(JSON.stringify(event.payload));
    if (event.type === 'tool_call' && match) return hostPid(Number(match[1]), match[2] ?? '');
  }
  return undefined;
}

/** The harness process's pid, printed by `@shell echo harness-pid=$PPID cwd=$PWD`. */
export function harnessPid(events: RunEvent[]): number | undefined {
  return reportedPid(events, 'harness-pid');
}
