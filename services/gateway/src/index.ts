export { startGateway } from './gateway.js';
export type { GatewayRuntime } from './gateway.js';
export type { Gateway } from './deps.js';
export { PUBLIC_ROUTES, PUBLIC_PREFIX } from './domain/routeTable.js';
export type { PublicRoute, RouteAuth } from './domain/routeTable.js';
export { SESSION_COOKIE } from './domain/sessions.js';
export { createRedisRateLimiter } from './store/rateLimiter.js';
export { runStartWindows } from './domain/limits.js';
