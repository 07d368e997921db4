import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from '@ars/logger';

/** What is known about the request being handled, anywhere below the request-id middleware. */
export interface RequestContext {
  requestId: string;
  logger: Logger;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** The request being handled in this async context, if any (used by @ars/http-client to propagate `X-Request-Id`). */
export function currentRequest(): RequestContext | undefined {
  return storage.getStore();
}

/** Runs `fn` with `context` as the current request (http-app does this per request; consumers may too). */
export function runWithRequestContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}
