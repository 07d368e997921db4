// The two tenants of a fuzz suite, made through the public API as the shared system's support makes
// them: the fuzzing tenant (whose resources give the valid parts of every request) and a bystander
// with resources of every kind, whose view through the public API is taken before and after.
// Each has its own account, repositories, PATs (a pool: see tokens.ts), an ended agent run, a
// published automation with an ended run, and a sandbox.
import { randomUUID } from 'node:crypto';
import { waitFor, type SystemView } from '@ars/testenv';
import { call, createAccount, dataOf, type Account, type Answer } from '../support/accounts.js';
import { graphOf } from '../support/automations.js';
import type { RawAnswer } from './send.js';
import { TokenPool } from './tokens.js';

export interface Tenant {
  account: Account;
  pool: TokenPool;
  api: string;
  repoId: string;
  installationId: number;
  agentId: string;
  automationId: string;
  /** The automation's run (ended). */
  automationRunId: string;
  /** An agent run (ended). */
  runId: string;
  sandboxId: string;
}

const ENDED = new Set(['success', 'failed', 'cancelled']);

/** One request with the tenant's PATs, read as the envelope. */
export async function asTenant<T>(
  tenant: Pick<Tenant, 'api' | 'pool'>,
  method: string,
  path: string,
  json?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer<T>> {
  const token = await tenant.pool.take();
  return call<T>(`${tenant.api}${path}`, { method, headers: { authorization: `Bearer ${token}`, ...headers }, ...(json === undefined ? {} : { json }) });
}

/**
 * A tenant with one resource of each kind. Its runs are cancelled as soon as they start (an ended
 * run in seconds, where waiting for an agent to finish takes a minute on a loaded machine), and the
 * agent run is waited on until it has ended: `svc_wait_for_run` on a run still going would wait
 * for as long as its arguments say. `settled`: the automation run ended and the sandbox ready too,
 * so what the tenant sees through the public API changes only if someone changes it (a bystander).
 */
export async function seedTenant(system: SystemView, settled: boolean): Promise<Tenant> {
  const baseUrl = system.baseUrl;
  const account = await createAccount(baseUrl);
  const pool = new TokenPool(baseUrl, account);
  // Made up front: the PAT list is part of what a bystander's snapshot compares, and the pool would
  // otherwise make one more in the middle when its reads fill a minute.
  await pool.ensure(3);
  const api = `${baseUrl}/api/v1/svc`;
  const self = { api, pool };
  const repoId = account.repos[0]?.id ?? '';
  const agentId = dataOf(await asTenant<{ agents: { id: string }[] }>(self, 'GET', '/agents')).agents[0]?.id ?? '';

  const run = async (): Promise<string> => {
    const started = dataOf(await asTenant<{ runId: string }>(self, 'POST', '/runs', { repoId, prompt: '@say fuzz seed' }, { 'idempotency-key': randomUUID() }));
    await asTenant(self, 'POST', `/runs/${started.runId}/cancel`);
    await waitFor(
      `run ${started.runId} to end`,
      async () => ENDED.has(dataOf(await asTenant<{ run: { status: string } }>(self, 'GET', `/runs/${started.runId}`)).run.status),
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    return started.runId;
  };

  const automation = async (): Promise<{ automationId: string; automationRunId: string }> => {
    const graph = graphOf(
      [
        ['start', 'start'],
        ['agent', 'agent', { agentId, prompt: '@say fuzz seed' }],
        ['end', 'end'],
      ],
      [
        ['start', 'agent'],
        ['agent', 'end'],
      ],
    );
    const created = dataOf(
      await asTenant<{ automation: { id: string } }>(self, 'POST', '/automations', {
        installationId: account.installationId,
        name: 'fuzz seed',
        graph,
        publish: true,
      }),
    );
    const automationId = created.automation.id;
    const triggered = dataOf(
      await asTenant<{ run: { jobRunId: string } }>(
        self,
        'POST',
        `/automations/${automationId}/trigger`,
        { repoId, input: {} },
        { 'idempotency-key': randomUUID() },
      ),
    );
    const automationRunId = triggered.run.jobRunId;
    await asTenant(self, 'POST', `/automations/${automationId}/runs/${automationRunId}/cancel`);
    if (!settled) return { automationId, automationRunId };
    await waitFor(
      `automation run ${automationRunId} to end`,
      async () => {
        const detail = dataOf(await asTenant<{ run: { status: string } | null }>(self, 'GET', `/automations/${automationId}/runs/${automationRunId}`)).run;
        return detail !== null && ENDED.has(detail.status);
      },
      { timeoutMs: 90_000, intervalMs: 1_000 },
    );
    return { automationId, automationRunId };
  };

  const sandbox = async (): Promise<string> => {
    const created = dataOf(await asTenant<{ sandbox: { id: string } }>(self, 'POST', '/sandboxes', { repoId }));
    if (!settled) return created.sandbox.id;
    await waitFor(
      `sandbox ${created.sandbox.id} to be ready`,
      async () => {
        const { status, error } = dataOf(
          await asTenant<{ sandbox: { status: string; error: string | null } }>(self, 'GET', `/sandboxes/${created.sandbox.id}/logs`),
        ).sandbox;
        if (status === 'failed' || status === 'stopped') throw new Error(`the seed sandbox is ${status}: ${error}`);
        return status === 'ready';
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    return created.sandbox.id;
  };

  const [runId, automationIds, sandboxId] = await Promise.all([run(), automation(), sandbox()]);
  return { account, pool, api, repoId, installationId: account.installationId, agentId, runId, sandboxId, ...automationIds };
}

/** The value of a parameter or field named `name` that is this tenant's own (its repository, automation, …); undefined when none is. */
export function ownValue(tenant: Tenant, template: string, name: string): unknown {
  switch (name) {
    case 'repoId':
    case 'repo_id':
      return tenant.repoId;
    case 'installationId':
      return tenant.installationId;
    case 'automationId':
      return tenant.automationId;
    case 'runId':
      // An automation's run under /automations, an agent run elsewhere (svc_get_automation_run and the like say so in their names).
      return /automation/i.test(template) ? tenant.automationRunId : tenant.runId;
    case 'sandboxId':
      return tenant.sandboxId;
    case 'agentId':
      return tenant.agentId;
    case 'nodeId':
      return 'agent';
    case 'modelId':
      return null;
    case 'prNumber':
      return 1;
    case 'prompt':
      return '@say fuzz';
    default:
      return undefined;
  }
}

/** Another tenant's id for a parameter or field, when it names a resource: what must never work for the fuzzing tenant. */
export function foreignValue(bystander: Tenant, template: string, name: string): string | undefined {
  const value = ownValue(bystander, template, name);
  return ['repoId', 'repo_id', 'automationId', 'runId', 'sandboxId'].includes(name) && typeof value === 'string' ? value : undefined;
}

/**
 * Work a success started: agent runs (`runId`) and automation runs (`jobRunId` beside `automationId`)
 * named anywhere in an answer, to be cancelled when the fuzzing ends.
 */
export class Effects {
  readonly runs = new Set<string>();
  readonly automationRuns = new Map<string, string>();

  note(answer: RawAnswer | undefined): void {
    if (!answer || answer.status < 200 || answer.status >= 300) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer.text);
    } catch {
      return;
    }
    this.walk(parsed, 0);
  }

  noteValue(value: unknown): void {
    this.walk(value, 0);
  }

  private walk(value: unknown, depth: number): void {
    if (typeof value !== 'object' || value === null || depth > 8) return;
    const record = value as Record<string, unknown>;
    if (typeof record.runId === 'string' && typeof record.status === 'string') this.runs.add(record.runId);
    if (typeof record.jobRunId === 'string' && typeof record.automationId === 'string') this.automationRuns.set(record.jobRunId, record.automationId);
    for (const child of Object.values(record)) this.walk(child, depth + 1);
  }

  /** Cancels what was started (answers ignored: a run may have ended by then, which is as good). */
  async cleanUp(tenant: Tenant): Promise<void> {
    const cancels = [
      ...[...this.runs].map((runId) => `/runs/${encodeURIComponent(runId)}/cancel`),
      ...[...this.automationRuns].map(([runId, automationId]) => `/automations/${encodeURIComponent(automationId)}/runs/${encodeURIComponent(runId)}/cancel`),
    ];
    for (const path of cancels) await asTenant(tenant, 'POST', path).catch(() => undefined);
  }
}

type Json = unknown;

/** A copy without the fields that move on their own (a heartbeat's time, a token's last use). */
function withoutVolatile(value: Json): Json {
  if (Array.isArray(value)) return value.map(withoutVolatile);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !['last_active_at', 'lastUsedAt'].includes(key))
      .map(([key, child]) => [key, withoutVolatile(child)]),
  );
}

/**
 * What the tenant sees of everything it has, through the public API (and its PAT list through the
 * session route, the only place PATs are listed): each read as `status body`, so a read that starts
 * failing shows as well as one whose data changed.
 */
export async function snapshot(system: SystemView, tenant: Tenant): Promise<Record<string, Json>> {
  const reads: Record<string, string> = {
    repos: '/repos',
    agents: '/agents',
    models: '/models',
    sandboxes: '/sandboxes',
    sandboxLogs: `/sandboxes/${tenant.sandboxId}/logs`,
    automations: '/automations',
    automation: `/automations/${tenant.automationId}`,
    automationRuns: `/automations/${tenant.automationId}/runs`,
    automationRun: `/automations/${tenant.automationId}/runs/${tenant.automationRunId}`,
    run: `/runs/${tenant.runId}`,
    runEvents: `/runs/${tenant.runId}/events?limit=200`,
    mcpServers: '/mcp/servers',
  };
  const entries = await Promise.all(
    Object.entries(reads).map(async ([name, path]) => {
      const answer = await asTenant(tenant, 'GET', path);
      return [name, { status: answer.status, body: withoutVolatile(answer.body) }] as const;
    }),
  );
  const keys = await call<{ apiKeys: { id: string }[] }>(`${system.baseUrl}/api/settings/api-keys`, { headers: { cookie: tenant.account.sessionCookie } });
  // Each PAT still answers (none revoked or disabled by someone else's request).
  const patsAnswer = await Promise.all(
    tenant.pool.all().map(async (token) => (await call(`${tenant.api}/repos`, { headers: { authorization: `Bearer ${token}` } })).status),
  );
  return { ...Object.fromEntries(entries), apiKeys: { status: keys.status, body: withoutVolatile(keys.body) }, patsAnswer };
}
