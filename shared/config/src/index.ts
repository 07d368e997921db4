export { env } from './variables.js';
export type { EnvVar, EnvSchema, ConfigOf } from './variables.js';
export { loadConfig, loadConfigOrExit, exitOnConfigError, ConfigError } from './load.js';
export type { EnvSource } from './load.js';
export { serviceConfig, environmentOf, LOG_LEVELS, ENVIRONMENTS } from './service.js';
export type { Environment, ServiceConfigOptions, ServiceConfigFragment } from './service.js';
export { productionProblems, refuseDevelopmentDefaults } from './production.js';
export type { DevelopmentDefault, ProductionRuleInput } from './production.js';
