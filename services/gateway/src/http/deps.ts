import type { HttpClient } from '@ars/http-client';
import type { Logger } from '@ars/logger';
import type { ServiceConfig } from '@ars/service';
import type { GatewayConfigSchema } from '../config.js';
import type { Peer } from '../peers.js';
import type { RateLimiter } from '../store/rateLimiter.js';
import type { SessionStore } from '../store/sessions.js';
import type { TokenStore } from '../store/personalAccessTokens.js';
import type { UserStore } from '../store/users.js';

/** Everything a route needs, built once per process (the composition root, `gateway.ts`, builds it). */
export interface Gateway {
  config: ServiceConfig<GatewayConfigSchema>;
  logger: Logger;
  peers: Record<Peer, HttpClient>;
  limiter: RateLimiter;
  users: UserStore;
  sessions: SessionStore;
  tokens: TokenStore;
  /** `PUBLIC_BASE_URL`'s origin, e.g. `http://127.0.0.1:8080`. */
  publicOrigin: string;
  production: boolean;
}
