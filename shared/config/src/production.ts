import { ConfigError } from './load.js';
import { environmentOf, type Environment } from './service.js';

/**
 * A development default a service can run on (a stand-in, a dev-only source, a loopback address).
 * Outside production it is fine; in production it is refused with `problem`, one clause naming the
 * variable: "CODEX_PATH is required in production (…)".
 */
export interface DevelopmentDefault {
  /** True when this configuration relies on the default. */
  inUse: boolean;
  problem: string;
}

/** What the production rules read of the common settings (`serviceConfig`). */
export interface ProductionRuleInput {
  NODE_ENV: Environment;
  ARS_ENV?: Environment | undefined;
  INTERNAL_TOKEN?: string | undefined;
}

/**
 * The rule every service keeps in production: the internal token is required (its minimum length is
 * the variable's own rule, checked whatever the environment).
 */
function commonDevelopmentDefaults(config: ProductionRuleInput): DevelopmentDefault[] {
  return [{ inUse: !config.INTERNAL_TOKEN, problem: 'INTERNAL_TOKEN is required in production (a string of at least 16 characters)' }];
}

/**
 * The problems of running this configuration in production: none outside production; there, the
 * common rule (INTERNAL_TOKEN) and every development default the service says is in use.
 */
export function productionProblems(config: ProductionRuleInput, developmentDefaults: readonly DevelopmentDefault[] = []): string[] {
  if (environmentOf(config) !== 'production') return [];
  return [...commonDevelopmentDefaults(config), ...developmentDefaults].filter((rule) => rule.inUse).map((rule) => rule.problem);
}

/** Throws one ConfigError naming every development default refused in production (see `productionProblems`). */
export function refuseDevelopmentDefaults(config: ProductionRuleInput, developmentDefaults: readonly DevelopmentDefault[] = []): void {
  const problems = productionProblems(config, developmentDefaults);
  if (problems.length > 0) throw new ConfigError(problems);
}
