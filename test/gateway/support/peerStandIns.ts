// Stand-ins for services the gateway composes from, speaking their internal APIs (docs: /tmp brief,
// "The catalog's internal API"; the runs start API the gateway calls). Used where the real service
// does not exist yet (runs) — and for the catalog until it is the one the stack runs.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { AppError } from '@ars/errors';
import { createHttpApp, mountRouters, ok, requireInternalCaller, Router, startHttpServer, clampLimit, type RunningServer } from '@ars/http-app';
import { createLogger } from '@ars/logger';

const logger = createLogger({ service: 'stand-in', level: 'silent' });

interface StandInRepo {
  id: string;
  full_name: string;
  installation_id: number;
  default_branch: string | null;
  root_directory: string | null;
  userId: string;
}

/** The catalog's internal API (repos, agents, models, dev installations), per user. */
export async function startCatalogStandIn(internalToken: string): Promise<RunningServer> {
  const repos: StandInRepo[] = [];
  let nextInstallation = 1000;
  const app = createHttpApp({ service: 'catalog-stand-in', logger });
  const router = new Router({ prefix: '/internal' });
  router.use(requireInternalCaller(internalToken));
  router.post('/dev/installations', (ctx) => {
    const body = (ctx.request as { body?: { userId?: string; repoCount?: number } }).body ?? {};
    if (!body.userId) throw AppError.badRequest('userId is required');
    const id = (nextInstallation += 1);
    const owner = `dev-${id}-${randomBytes(3).toString('hex')}`;
    const created = ['web-app', 'api-server'].map((name) => ({
      id: randomUUID(),
      full_name: `${owner}/${name}`,
      installation_id: id,
      default_branch: 'main',
      root_directory: null,
      userId: body.userId ?? '',
    }));
    repos.push(...created);
    ok(ctx, { installation: { id, account: owner, provider: 'local' }, repos: created.map((r) => ({ id: r.id, full_name: r.full_name, default_branch: r.default_branch })) }, 201);
  });
  router.get('/users/:userId/repos', (ctx) => {
    const limit = clampLimit(ctx.query.limit, { min: 1, max: 200, default: 100 });
    const q = typeof ctx.query.q === 'string' ? ctx.query.q.toLowerCase() : '';
    const mine = repos
      .filter((r) => r.userId === ctx.params.userId && r.full_name.toLowerCase().includes(q))
      .sort((a, b) => a.full_name.localeCompare(b.full_name))
      .slice(0, limit)
      .map(({ userId: _userId, ...repo }) => ({ ...repo, clone_url: `file:///stand-in/${repo.full_name}.git` }));
    ok(ctx, { repos: mine });
  });
  router.get('/users/:userId/agents', (ctx) => {
    ok(ctx, { agents: [{ id: 'preset:reviewer', name: 'Reviewer', slug: 'reviewer', model: 'gpt-5', description: null, category: 'review', preset: true, createdAt: 'x' }] });
  });
  router.get('/users/:userId/models', (ctx) => {
    ok(ctx, { models: [{ id: 'gpt-5', provider: 'openai', name: 'GPT-5', contextLength: 400000, capabilities: ['code'], pricing: { input: 1.25, output: 10 }, visible: true }] });
  });
  mountRouters(app, router);
  return startHttpServer(app, { port: 0 });
}

export interface RunsStandIn {
  server: RunningServer;
  /** Idempotency keys and body hashes the gateway sent, in order. */
  received: { userId: string; key: string; bodyHash: string }[];
}

/** The runs start API: idempotency per (user, key) on the body hash the gateway sends; GET scoped to the user. */
export async function startRunsStandIn(internalToken: string): Promise<RunsStandIn> {
  const byKey = new Map<string, { hash: string; run: Record<string, unknown> }>();
  const runs = new Map<string, { userId: string; run: Record<string, unknown> }>();
  const received: RunsStandIn['received'] = [];
  const app = createHttpApp({ service: 'runs-stand-in', logger });
  const router = new Router({ prefix: '/internal' });
  router.use(requireInternalCaller(internalToken));
  router.post('/users/:userId/runs', (ctx) => {
    const userId = ctx.params.userId ?? '';
    const key = ctx.get('Idempotency-Key');
    const hash = ctx.get('X-Body-Sha256');
    received.push({ userId, key, bodyHash: hash });
    const body = (ctx.request as { body?: Record<string, unknown> }).body ?? {};
    if (body.repoId === 'no-such-repo') throw AppError.notFound('Repository not found');
    const earlier = byKey.get(`${userId}:${key}`);
    if (earlier) {
      if (earlier.hash !== hash) throw new AppError('IDEMPOTENCY_CONFLICT', 'Idempotency-Key reused with a different body');
      return ok(ctx, { ...earlier.run, replayed: true }, 202);
    }
    const runId = randomUUID();
    const run = { runId, repoId: body.repoId, status: 'pending', hash: createHash('sha256').update(hash).digest('hex').slice(0, 8) };
    byKey.set(`${userId}:${key}`, { hash, run });
    runs.set(runId, { userId, run });
    ok(ctx, { ...run, replayed: false }, 202);
  });
  router.get('/users/:userId/runs/:runId', (ctx) => {
    const found = runs.get(ctx.params.runId ?? '');
    if (!found || found.userId !== ctx.params.userId) throw AppError.notFound('Run not found');
    ok(ctx, { run: found.run });
  });
  mountRouters(app, router);
  return { server: await startHttpServer(app, { port: 0 }), received };
}

export interface EmptyPeer {
  server: RunningServer;
  /** What the gateway asked: method, path and query string of each call. */
  received: { method: string; path: string; query: Record<string, unknown>; caller: string }[];
}

/** A service with no routes yet (its internal API answers 404 in the envelope), ready on /readyz. */
export async function startEmptyPeer(): Promise<EmptyPeer> {
  const received: EmptyPeer['received'] = [];
  const app = createHttpApp({ service: 'empty-peer', logger });
  app.use(async (ctx, next) => {
    if (ctx.path.startsWith('/internal/')) received.push({ method: ctx.method, path: ctx.path, query: { ...ctx.query }, caller: ctx.get('X-Caller-Service') });
    await next();
  });
  return { server: await startHttpServer(app, { port: 0 }), received };
}
