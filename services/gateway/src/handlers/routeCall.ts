// One way to run a public route, whoever asks: the REST surface (a Koa request) and the MCP tools
// (a tool call's arguments) build the same RouteCall and run the same handler, so scope, tenancy,
// limits and idempotency cannot drift between them.
import type { Principal } from '../auth/state.js';

export interface RouteCall {
  principal: Principal;
  /** The route's path parameters (`:runId` → `runId`). */
  params: Record<string, string>;
  query: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (undefined without one). */
  body: unknown;
  /** `Idempotency-Key`, as sent (checked by the routes that require it). */
  idempotencyKey: string | undefined;
}

/** A route's work: the data of its success answer (its status is the route's `successStatus`), or a thrown AppError. */
export type RouteHandler = (call: RouteCall) => Promise<unknown>;
