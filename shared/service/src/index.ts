export { PortInUseError, runService } from './runService.js';
export { startPeriodicPass, type PeriodicPass } from './periodic.js';
export type { Compose, RunningService, ServiceContext, ServiceDefinition, ServiceConfig, ShutdownHook } from './runService.js';
export { env } from '@ars/config';
