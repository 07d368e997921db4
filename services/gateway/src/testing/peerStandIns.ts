// Stand-ins for services whose internal API does not exist yet, speaking what the gateway calls:
// the runs start API (POST /internal/users/:userId/runs with Idempotency-Key and X-Request-Hash, and
// X-Replay-Only: 204 when the key made no run) and
// services without routes (their internal API answers 404 in the envelope).
import { createHash, randomUUID } from 'node:crypto';
import { REPLAY_ONLY_HEADER, REQUEST_HASH_HEADER } from '@ars/contract';
import { AppError } from '@ars/errors';
import { createHttpApp, mountRouters, ok, requireInternalCaller, Router, startHttpServer, type RunningServer } from '@ars/http-app';
import { createLogger } from '@ars/logger';

const logger = createLogger({ service: 'stand-in', level: 'silent' });

export interface RunsStandIn {
  server: RunningServer;
  /** Idempotency keys and body hashes the gateway sent, in order (replay-only questions aside). */
  received: { userId: string; key: string; bodyHash: string }[];
  /** The keys the gateway asked the replay of only (`X-Replay-Only: true`), in order. */
  replayQuestions: string[];
}

/** The runs start API: idempotency per (user, key) on the body hash the gateway sends; GET scoped to the user. */
export async function startRunsStandIn(internalToken: string): Promise<RunsStandIn> {
  const byKey = new Map<string, { hash: string; run: Record<string, unknown> }>();
  const runs = new Map<string, { userId: string; run: Record<string, unknown> }>();
  const received: RunsStandIn['received'] = [];
  const replayQuestions: string[] = [];
  const app = createHttpApp({ service: 'runs-stand-in', logger });
  const router = new Router({ prefix: '/internal' });
  router.use(requireInternalCaller(internalToken));
  router.post('/users/:userId/runs', (ctx) => {
    const userId = ctx.params.userId ?? '';
    const key = ctx.get('Idempotency-Key');
    const hash = ctx.get(REQUEST_HASH_HEADER);
    const replayOnly = ctx.get(REPLAY_ONLY_HEADER) === 'true';
    if (replayOnly) replayQuestions.push(key);
    else received.push({ userId, key, bodyHash: hash });
    const body = (ctx.request as { body?: Record<string, unknown> }).body ?? {};
    if (body.repoId === 'no-such-repo') throw AppError.notFound('Repository not found');
    const earlier = byKey.get(`${userId}:${key}`);
    if (earlier) {
      if (earlier.hash !== hash) throw new AppError('IDEMPOTENCY_CONFLICT', 'Idempotency-Key reused with a different body');
      return ok(ctx, { ...earlier.run, replayed: true }, 202);
    }
    if (replayOnly) {
      ctx.status = 204;
      return;
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
  return { server: await startHttpServer(app, { port: 0 }), received, replayQuestions };
}

export interface EmptyPeer {
  server: RunningServer;
  /** What the gateway asked: method, path and query string of each call. */
  received: { method: string; path: string; query: Record<string, unknown>; caller: string }[];
}

/**
 * A service without routes (its internal API answers 404 in the envelope), ready on /readyz.
 * `answers`: the few calls it does answer, `METHOD /path` (a regular expression over both) → data,
 * e.g. the development account's example tool servers.
 */
export async function startEmptyPeer(answers: readonly { call: RegExp; status: number; data: unknown }[] = []): Promise<EmptyPeer> {
  const received: EmptyPeer['received'] = [];
  const app = createHttpApp({ service: 'empty-peer', logger });
  app.use(async (ctx, next) => {
    if (ctx.path.startsWith('/internal/')) received.push({ method: ctx.method, path: ctx.path, query: { ...ctx.query }, caller: ctx.get('X-Caller-Service') });
    const answer = answers.find((candidate) => candidate.call.test(`${ctx.method} ${ctx.path}`));
    if (answer) {
      ok(ctx, answer.data, answer.status);
      return;
    }
    await next();
  });
  return { server: await startHttpServer(app, { port: 0 }), received };
}
