export { runService } from './runService.js';
export { PortInUseError } from './startup.js';
export { SHUTDOWN_CLOSING_RESERVE_MS } from './shutdown.js';
export { startPeriodicPass, type PeriodicPass } from './periodic.js';
export type { Compose, RunningService, ServiceContext, ServiceDefinition, ServiceConfig, ShutdownBudget, ShutdownHook } from './definition.js';
export { env } from '@ars/config';
