import type { Logger } from '@ars/logger';

// Every Koa context of an http-app carries these in `ctx.state` (typed through Koa's DefaultState).
declare module 'koa' {
  interface DefaultState {
    /** The request id (from a sane `X-Request-Id`, else generated); also on the response. */
    requestId: string;
    /** A child logger bound to the request id. */
    logger: Logger;
    /** The calling service's name (`X-Caller-Service`) after `requireInternalCaller`. */
    caller?: string;
    /** The contract code of an error answer (for the access log). */
    errorCode?: string;
  }
}

export {};
