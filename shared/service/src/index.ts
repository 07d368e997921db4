export { PortInUseError, runService, SHUTDOWN_CLOSING_RESERVE_MS } from './runService.js';
export { startPeriodicPass, type PeriodicPass } from './periodic.js';
export type { Compose, RunningService, ServiceContext, ServiceDefinition, ServiceConfig, ShutdownBudget, ShutdownHook } from './runService.js';
export { env } from '@ars/config';
