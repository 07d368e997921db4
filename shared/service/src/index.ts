export { PortInUseError, runService } from './runService.js';
export type { RunningService, ServiceContext, ServiceDefinition, ServiceConfig, ShutdownHook } from './runService.js';
export { env } from '@ars/config';
