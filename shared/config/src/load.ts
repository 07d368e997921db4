import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import type { ConfigOf, EnvSchema } from './variables.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM interop in some loaders.
const addFormatsLoose = addFormatsModule as unknown as FormatsPlugin | { default: FormatsPlugin };
const addFormats: FormatsPlugin = typeof addFormatsLoose === 'function' ? addFormatsLoose : addFormatsLoose.default;

/** A bad or missing configuration value. `message` is one line naming every wrong variable. */
export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`Invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export type EnvSource = Readonly<Record<string, string | undefined>>;

// One instance, and one compiled validator per schema: a process that loads its configuration more
// than once (a service's check, then its start; a test system starting services in-process)
// compiles it once.
const ajv = new Ajv({ useDefaults: true, allErrors: true, strict: false });
addFormats(ajv);
const validators = new WeakMap<EnvSchema, ValidateFunction>();

function validatorOf(schema: EnvSchema): ValidateFunction {
  let validate = validators.get(schema);
  if (!validate) {
    const properties: Record<string, unknown> = {};
    const required: string[] = [];
    for (const [name, variable] of Object.entries(schema)) {
      properties[name] = variable.schema;
      if (variable.required) required.push(name);
    }
    validate = ajv.compile({ type: 'object', properties, required });
    validators.set(schema, validate);
  }
  return validate;
}

function quote(raw: string): string {
  const shown = raw.length > 80 ? `${raw.slice(0, 77)}...` : raw;
  return JSON.stringify(shown);
}

/**
 * Reads and validates configuration from `process.env` (or `source`). Empty strings count as unset.
 * Values are coerced (integers, booleans, comma lists), defaults applied, then the whole object is
 * validated with ajv. Throws `ConfigError` with a one-line message on any bad or missing value.
 */
export function loadConfig<S extends EnvSchema>(schema: S, source: EnvSource = process.env): ConfigOf<S> {
  const input: Record<string, unknown> = {};
  const raws: Record<string, string> = {};
  for (const [name, variable] of Object.entries(schema)) {
    const raw = source[name];
    if (raw === undefined || raw.trim() === '') continue;
    raws[name] = raw;
    input[name] = variable.prepare ? variable.prepare(raw.trim()) : raw.trim();
  }
  const validate = validatorOf(schema);
  if (validate(input)) return input as ConfigOf<S>;

  const problems = new Map<string, string>();
  for (const error of validate.errors ?? []) {
    const name = variableOf(error);
    if (name === undefined || problems.has(name)) continue;
    const variable = schema[name];
    if (!variable) continue;
    const raw = raws[name];
    if (raw === undefined) {
      problems.set(name, `${name} is required (${variable.expectation})`);
    } else {
      const got = variable.secret ? 'got a value that is not shown' : `got ${quote(raw)}`;
      problems.set(name, `${name} must be ${variable.expectation} (${got})`);
    }
  }
  if (problems.size === 0) problems.set('?', 'configuration failed validation');
  throw new ConfigError([...problems.values()]);
}

function variableOf(error: ErrorObject): string | undefined {
  if (error.keyword === 'required') return (error.params as { missingProperty: string }).missingProperty;
  const first = error.instancePath.split('/')[1];
  return first === undefined || first === '' ? undefined : first.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Prints a ConfigError's one line to stderr and exits 1; any other error is rethrown. */
export function exitOnConfigError(error: unknown): never {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  throw error;
}

/** `loadConfig`, exiting the process with the one line when the configuration is wrong. */
export function loadConfigOrExit<S extends EnvSchema>(schema: S, source: EnvSource = process.env): ConfigOf<S> {
  try {
    return loadConfig(schema, source);
  } catch (error) {
    return exitOnConfigError(error);
  }
}
