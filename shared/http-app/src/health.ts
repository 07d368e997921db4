import type { Context, Middleware } from 'koa';
import { AppError, successEnvelope } from '@ars/errors';

export interface ReadinessCheckResult {
  ok: boolean;
  /** Why the check failed. */
  error?: string;
}

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, ReadinessCheckResult>;
}

/** One dependency check: resolves when ready; throws (or resolves `false`) when not. */
export type ReadinessCheck = () => Promise<void | boolean>;

const DEFAULT_CHECK_TIMEOUT_MS = 2_000;

/** Runs every check concurrently, each under a deadline, and reports which failed. */
export async function runReadinessChecks(checks: Record<string, ReadinessCheck>, options: { timeoutMs?: number } = {}): Promise<ReadinessReport> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]): Promise<[string, ReadinessCheckResult]> => {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        const result = await Promise.race([check(), deadline]);
        return [name, result === false ? { ok: false, error: 'not ready' } : { ok: true }];
      } catch (error) {
        return [name, { ok: false, error: error instanceof Error ? error.message : String(error) }];
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  const report = Object.fromEntries(entries);
  return { ready: entries.every(([, result]) => result.ok), checks: report };
}

/** The header in which `/healthz` and `/readyz` answer the instance id the process was started with. */
export const INSTANCE_HEADER = 'X-Ars-Instance';

/**
 * `/healthz` (alive: 200 while the process serves HTTP) and `/readyz` (200 only when every check
 * passes). With `instance`, every answer of both carries it in `X-Ars-Instance`: whoever started the
 * process (the local stack) tells its own child from another process listening on the same port.
 * Any other path passes straight on: no async frame of its own (issue 33).
 */
export function healthRoutes(service: string, readiness?: () => Promise<ReadinessReport>, instance?: string): Middleware {
  const identity: Record<string, string> = instance ? { [INSTANCE_HEADER]: instance } : {};
  const answerProbe = async (ctx: Context): Promise<void> => {
    ctx.set(identity);
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.set('Allow', 'GET, HEAD');
      ctx.status = 405;
      return;
    }
    if (ctx.path === '/healthz') {
      ctx.body = successEnvelope({ status: 'alive', service });
      return;
    }
    const report = readiness ? await readiness() : { ready: true, checks: {} };
    if (!report.ready) {
      const failed = Object.entries(report.checks)
        .filter(([, result]) => !result.ok)
        .map(([name, result]) => `${name} (${result.error ?? 'not ready'})`);
      ctx.state.logger.warn({ checks: report.checks }, 'not ready');
      // The error envelope drops headers set before the throw: the identity travels with the error.
      throw new AppError('SERVICE_UNAVAILABLE', `Not ready: ${failed.join(', ') || 'unknown'}`, { headers: identity });
    }
    ctx.body = successEnvelope({ status: 'ready', service, checks: report.checks });
  };
  return (ctx, next) => (ctx.path === '/healthz' || ctx.path === '/readyz' ? answerProbe(ctx) : next());
}
