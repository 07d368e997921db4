import { createCatalogClient, type CatalogClient } from '@ars/catalog/client';
import { environmentOf } from '@ars/config';
import type { HttpClient } from '@ars/http-client';
import type { Logger } from '@ars/logger';
import { createRunsClient, type RunsClient } from '@ars/runs/client';
import { runService, type RunningService, type ServiceConfig, type ServiceContext, type ServiceDefinition } from '@ars/service';
import { gatewayConfigSchema, gatewayDevelopmentDefaults, type GatewayConfigSchema } from './config.js';
import { PUBLIC_PREFIX } from './domain/routeTable.js';
import { publicRoutes } from './http/publicRoutes.js';
import { sessionRoutes } from './http/sessionRoutes.js';
import { createPeerClients, peerReadinessChecks, type Peer } from './peers.js';
import { sessionIndexes, sessionStore, type SessionStore } from './store/sessions.js';
import { tokenIndexes, tokenStore, type TokenStore } from './store/personalAccessTokens.js';
import { userIndexes, userStore, type UserStore } from './store/users.js';
import { createRedisRateLimiter, type RateLimiter } from './store/rateLimiter.js';

/** Everything a route needs, built once per process. */
export interface Gateway {
  config: ServiceConfig<GatewayConfigSchema>;
  logger: Logger;
  /** Every peer's internal API, for readiness and the generic forwarding of public routes. */
  peers: Record<Peer, HttpClient>;
  /** The typed clients of the internal routes the gateway calls by name. */
  catalog: CatalogClient;
  runs: RunsClient;
  limiter: RateLimiter;
  users: UserStore;
  sessions: SessionStore;
  tokens: TokenStore;
  /** `PUBLIC_BASE_URL`'s origin, e.g. `http://127.0.0.1:8080`. */
  publicOrigin: string;
  production: boolean;
}

function buildGateway(ctx: ServiceContext<GatewayConfigSchema>): Gateway {
  const { config } = ctx;
  if (!ctx.mongo) throw new Error('the gateway needs MongoDB');
  const limiter = createRedisRateLimiter(config.REDIS_URL);
  ctx.onShutdown(() => limiter.close(), 'redis');
  const peers = createPeerClients(ctx);
  return {
    config,
    logger: ctx.logger,
    peers,
    catalog: createCatalogClient(peers.catalog),
    runs: createRunsClient(peers.runs),
    limiter,
    users: userStore(ctx.mongo.db),
    sessions: sessionStore(ctx.mongo.db),
    tokens: tokenStore(ctx.mongo.db),
    publicOrigin: new URL(config.PUBLIC_BASE_URL ?? `http://127.0.0.1:${config.PORT}`).origin,
    production: environmentOf(config) === 'production',
  };
}

export type GatewayRuntime = ServiceDefinition<GatewayConfigSchema>['runtime'];

/** The gateway service (main.ts runs it; tests run it in-process with `runtime`). */
export function startGateway(runtime?: GatewayRuntime): Promise<RunningService<GatewayConfigSchema>> {
  let gateway: Gateway | undefined;
  const gatewayOf = (ctx: ServiceContext<GatewayConfigSchema>): Gateway => (gateway ??= buildGateway(ctx));
  return runService({
    name: 'gateway',
    port: 8080,
    requireMongo: true,
    requireBus: true,
    configSchema: gatewayConfigSchema,
    developmentDefaults: gatewayDevelopmentDefaults,
    indexes: [userIndexes, sessionIndexes, tokenIndexes],
    // Public routes parse their body after authentication (http/jsonBody.ts); the MCP transport reads
    // its own (malformed JSON there is a JSON-RPC -32700, not a REST 400).
    skipBodyParsing: (ctx) => ctx.path === PUBLIC_PREFIX || ctx.path.startsWith(`${PUBLIC_PREFIX}/`),
    readiness: (ctx) => {
      const g = gatewayOf(ctx);
      return { redis: () => g.limiter.ping(), ...peerReadinessChecks(g.peers) };
    },
    routes: (ctx) => [publicRoutes(gatewayOf(ctx)), sessionRoutes(gatewayOf(ctx))],
    ...(runtime ? { runtime } : {}),
  });
}
