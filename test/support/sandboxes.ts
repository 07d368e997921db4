// Sandboxes through the public API, as a client would, and the repositories behind them (files
// committed to the local source host's bare repositories with the git CLI).
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { LifecycleEvent, Sandbox, SandboxLogs } from '@ars/contract';
import { waitFor } from '@ars/testenv';
import { bearer, call, createAccount, createToken, dataOf, type Account, type Answer } from './accounts.js';
import { git, sourceRepositoryPath } from './runs.js';
import type { SystemView } from '@ars/testenv';

// The public shapes are the contract package's (CONTRACT.md, Sandbox, Sandbox logs); named here for the system tests.
export type { LifecycleEvent, Sandbox, SandboxLogs };

/** The contract's Sandbox fields, exactly (CONTRACT.md, Sandbox). */
export const SANDBOX_FIELDS = [
  'base_branch',
  'created_at',
  'error',
  'id',
  'last_active_at',
  'preview_url',
  'repo_id',
  'root_directory',
  'sandbox_id',
  'status',
  'working_branch',
] as const;

/** One user's client; polling takes its tokens in turn (each PAT may make 60 requests a minute). */
export class SandboxesClient {
  readonly api: string;
  private turn = 0;
  constructor(
    baseUrl: string,
    private readonly tokens: readonly string[],
  ) {
    this.api = `${baseUrl}/api/v1/svc`;
  }

  private token(): string {
    this.turn = (this.turn + 1) % this.tokens.length;
    return this.tokens[this.turn] ?? '';
  }

  create(body: Record<string, unknown>): Promise<Answer<{ sandbox: Sandbox }>> {
    return call(`${this.api}/sandboxes`, { method: 'POST', headers: bearer(this.token()), json: body });
  }

  async created(body: Record<string, unknown>): Promise<Sandbox> {
    return dataOf(await this.create(body)).sandbox;
  }

  list(query = ''): Promise<Answer<{ sandboxes: Sandbox[] }>> {
    return call(`${this.api}/sandboxes${query}`, { headers: bearer(this.token()) });
  }

  logs(id: string): Promise<Answer<SandboxLogs>> {
    return call(`${this.api}/sandboxes/${encodeURIComponent(id)}/logs`, { headers: bearer(this.token()) });
  }

  /** Polls the logs until `until` holds (or fails with what was last seen). */
  async waitFor(id: string, until: (logs: SandboxLogs) => boolean, timeoutMs = 60_000, what = 'the condition'): Promise<SandboxLogs> {
    let last: SandboxLogs | undefined;
    const held = async (): Promise<SandboxLogs | undefined> => {
      last = dataOf(await this.logs(id));
      return until(last) ? last : undefined;
    };
    const lastSeen = (): string =>
      `sandbox ${id}: ${what}; status ${last?.sandbox.status}, error ${last?.sandbox.error}, events ${(last?.lifecycle_events ?? []).map((e) => `${e.event_type}/${e.decision_code ?? ''}`).join(', ')}`;
    return waitFor(lastSeen, held, { timeoutMs, intervalMs: 500 });
  }

  waitForStatus(id: string, status: string, timeoutMs?: number): Promise<SandboxLogs> {
    return this.waitFor(
      id,
      (logs) => logs.sandbox.status === status || ['failed', 'stopped'].includes(logs.sandbox.status),
      timeoutMs,
      `status ${status}`,
    ).then((logs) => {
      if (logs.sandbox.status !== status)
        throw new Error(`sandbox ${id} is ${logs.sandbox.status} (${logs.sandbox.error}), not ${status}: ${logs.sandbox.install_log ?? ''}`);
      return logs;
    });
  }
}

export function eventTypes(logs: SandboxLogs): string[] {
  return logs.lifecycle_events.map((event) => event.event_type);
}

/** A brand-new account with a client holding `tokenCount` read+write PATs. */
export async function newSandboxesUser(
  baseUrl: string,
  tokenCount = 4,
): Promise<{ client: SandboxesClient; account: Account; repoId: string; otherRepoId: string }> {
  const account = await createAccount(baseUrl);
  const tokens = await Promise.all(Array.from({ length: tokenCount }, (_, i) => createToken(baseUrl, account, { name: `sandboxes-${i}` })));
  return {
    client: new SandboxesClient(
      baseUrl,
      tokens.map((t) => t.token),
    ),
    account,
    repoId: account.repos[0]?.id ?? '',
    otherRepoId: account.repos[1]?.id ?? '',
  };
}

/** Commits `files` (path → content) on `branch` of the repository behind `repoId` (created from the default branch when new). */
export async function commitFiles(system: SystemView, account: Account, repoId: string, files: Record<string, string>, branch?: string): Promise<void> {
  const bare = await sourceRepositoryPath(system.stack.services.catalog.url, system.internalToken, account, repoId);
  const work = await mkdtemp(join(tmpdir(), 'ars-test-commit-'));
  try {
    await git(['clone', '--quiet', bare, work]);
    if (branch) await git(['checkout', '--quiet', '-B', branch], work);
    for (const [path, content] of Object.entries(files)) {
      await mkdir(dirname(join(work, path)), { recursive: true });
      await writeFile(join(work, path), content);
    }
    await git(['add', '-A'], work);
    await git(['-c', 'user.name=Test', '-c', 'user.email=test@example.com', 'commit', '--quiet', '-m', 'test files'], work);
    await git(['push', '--quiet', 'origin', `HEAD:refs/heads/${branch ?? (await git(['rev-parse', '--abbrev-ref', 'HEAD'], work)).trim()}`], work);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** A package with a lock file and no dependencies: `npm ci` installs it without the network. */
export const NPM_PROJECT = {
  'package.json': JSON.stringify({ name: 'sandbox-fixture', version: '1.0.0', private: true }, null, 2),
  'package-lock.json': JSON.stringify(
    { name: 'sandbox-fixture', version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name: 'sandbox-fixture', version: '1.0.0' } } },
    null,
    2,
  ),
};

/** A dev server that answers every request with its name, on `PORT`. */
export const DEV_SERVER = {
  'server.mjs':
    "import { createServer } from 'node:http';\nconst port = Number(process.env.PORT);\ncreateServer((req, res) => { res.end('hello from the dev server'); }).listen(port, () => console.log('dev server listening on ' + port));\n",
};
