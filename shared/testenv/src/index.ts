export { startTestInfrastructure } from './infrastructure.js';
export type { TestInfrastructure, InfrastructureSource } from './infrastructure.js';
export { dockerEngineReachable } from './dockerEngine.js';
export { testInfrastructure } from './current.js';
export type { CurrentInfrastructure } from './current.js';
export { freePort, reservePort } from './ports.js';
export type { PortReservation } from './ports.js';
export { hostPid } from './processes.js';
