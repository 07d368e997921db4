import './state.js';

export {
  createHttpApp,
  mountRouters,
  startHttpServer,
  closeServer,
  HEADERS_TIMEOUT_MS,
  REQUEST_TIMEOUT_MS,
  KEEP_ALIVE_TIMEOUT_MS,
  MAX_HEADER_SIZE_BYTES,
} from './app.js';
export type { HttpApp, HttpAppOptions, HttpServerOptions, HttpServerTimeouts, MountableRouter, RunningServer } from './app.js';
export { ok } from './respond.js';
export { validateBody, parseQuery, clampLimit, describeValidationError } from './validate.js';
export type { LimitRange } from './validate.js';
export { characterCount, tooManyCharacters } from './characters.js';
export { INSTANCE_HEADER, runReadinessChecks } from './health.js';
export type { ReadinessReport, ReadinessCheck, ReadinessCheckResult } from './health.js';
export { currentRequest, runWithRequestContext } from './requestContext.js';
export type { RequestContext } from './requestContext.js';
export { REQUEST_ID_HEADER, isSaneRequestId } from './requestId.js';
export { methodNotAllowed, routeNotFound } from './errors.js';
export { requireInternalCaller, INTERNAL_TOKEN_HEADER, CALLER_SERVICE_HEADER } from './internalCaller.js';
export { DEFAULT_BODY_LIMIT, MAX_JSON_DEPTH, assertJsonDepth, carriesJsonBody, jsonDepth, readRawBody, parseByteLimit } from './body.js';
export { Router } from '@koa/router';
export type { RouterContext, RouterMiddleware } from '@koa/router';
export type { Context, Middleware, Next } from 'koa';
export { pathParam, requestBody } from './params.js';
export { METRICS_PATH, createMetricsApp, routeLabel } from './metrics.js';
