import { Ajv, type ErrorObject, type SchemaObject, type ValidateFunction } from 'ajv';
import addFormatsModule, { type FormatsPlugin } from 'ajv-formats';
import { AppError } from '@ars/errors';

const addFormatsLoose = addFormatsModule as unknown as FormatsPlugin | { default: FormatsPlugin };
const addFormats: FormatsPlugin = typeof addFormatsLoose === 'function' ? addFormatsLoose : addFormatsLoose.default;

// Bodies are validated as sent (no coercion); query strings are coerced from their string form.
const bodyAjv = new Ajv({ allErrors: false, strict: false, useDefaults: true });
const queryAjv = new Ajv({ allErrors: false, strict: false, useDefaults: true, coerceTypes: 'array' });
addFormats(bodyAjv);
addFormats(queryAjv);

function fieldName(root: string, instancePath: string): string {
  if (instancePath === '') return root;
  return instancePath
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
}

const ARTICLE: Record<string, string> = {
  integer: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

function typePhrase(type: string | string[]): string {
  const types = Array.isArray(type) ? type : [type];
  return types.map((t) => ARTICLE[t] ?? t).join(' or ');
}

/** One readable sentence naming the field: `limit must be an integer`, `repoId is required`. */
export function describeValidationError(error: ErrorObject, root: string): string {
  const field = fieldName(root, error.instancePath);
  const child = (name: string): string => (error.instancePath === '' ? name : `${field}.${name}`);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${child(String(params.missingProperty))} is required`;
    case 'additionalProperties':
      return `${child(String(params.additionalProperty))} is not allowed`;
    case 'false schema':
      // A property whose schema is `false`: named, refused (e.g. an internal field on a public route).
      return `${field} is not allowed`;
    case 'type':
      return `${field} must be ${typePhrase(params.type as string | string[])}`;
    case 'enum':
      return `${field} must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'const':
      return `${field} must be ${JSON.stringify(params.allowedValue)}`;
    case 'minimum':
      return `${field} must be at least ${String(params.limit)}`;
    case 'exclusiveMinimum':
      return `${field} must be greater than ${String(params.limit)}`;
    case 'maximum':
      return `${field} must be at most ${String(params.limit)}`;
    case 'exclusiveMaximum':
      return `${field} must be less than ${String(params.limit)}`;
    case 'minLength':
      return params.limit === 1 ? `${field} must not be empty` : `${field} must be at least ${String(params.limit)} characters`;
    case 'maxLength':
      return `${field} must be at most ${String(params.limit)} characters`;
    case 'minItems':
      return `${field} must have at least ${String(params.limit)} items`;
    case 'maxItems':
      return `${field} must have at most ${String(params.limit)} items`;
    case 'pattern':
      return `${field} has an invalid format`;
    case 'format':
      return `${field} must be a valid ${String(params.format)}`;
    default:
      return `${field} ${error.message ?? 'is invalid'}`;
  }
}

/**
 * The schema's validator, compiled on its first use: a process compiles only what it serves. Every
 * in-process test system compiled every route's schema again (a tenth of a profiled in-process
 * suite's CPU); a service's own start did not measurably change.
 */
function compiledOnFirstUse(ajv: Ajv, schema: SchemaObject): () => ValidateFunction {
  let validate: ValidateFunction | undefined;
  return () => (validate ??= ajv.compile(schema));
}

/**
 * A compiled body validator: `const parseStartRun = validateBody<StartRunBody>(schema)`, then
 * `const body = parseStartRun(ctx.request.body)`. Throws 400 BAD_REQUEST naming the first bad field.
 * Defaults in the schema are applied to the returned value.
 */
export function validateBody<T>(schema: SchemaObject): (body: unknown) => T {
  const validator = compiledOnFirstUse(bodyAjv, schema);
  return (body: unknown): T => {
    const value = body === undefined ? {} : body;
    const validate = validator();
    if (validate(value)) return value as T;
    const [first] = validate.errors ?? [];
    throw AppError.badRequest(first ? describeValidationError(first, 'body') : 'body is invalid');
  };
}

/**
 * A compiled query-string validator with type coercion (`"50"` → 50, `"true"` → true). Repeated
 * parameters arrive as arrays; a scalar schema takes the single value. Throws 400 naming the field.
 */
export function parseQuery<T>(schema: SchemaObject): (query: Record<string, string | string[] | undefined>) => T {
  const validator = compiledOnFirstUse(queryAjv, schema);
  return (query): T => {
    const value: Record<string, unknown> = {};
    for (const [key, raw] of Object.entries(query)) if (raw !== undefined && raw !== '') value[key] = raw;
    const validate = validator();
    if (validate(value)) return value as T;
    const [first] = validate.errors ?? [];
    throw AppError.badRequest(first ? describeValidationError(first, 'query') : 'query is invalid');
  };
}

export interface LimitRange {
  min: number;
  max: number;
  default: number;
  /** The parameter's name in error messages; default `limit`. */
  name?: string;
}

/**
 * A list `limit`: absent → the default; an integer outside the range → clamped into it (the contract
 * clamps rather than rejects); not an integer → 400 `limit must be an integer`.
 */
export function clampLimit(raw: unknown, range: LimitRange): number {
  const name = range.name ?? 'limit';
  if (raw === undefined || raw === null || raw === '') return range.default;
  let value: number;
  if (typeof raw === 'number' && Number.isInteger(raw)) value = raw;
  // Digits are an integer however many: past the safe range (`99999999999999999999`, or so long it
  // reads as Infinity) it is still outside the range, and clamped like any other, by its sign.
  else if (typeof raw === 'string' && /^\s*[-+]?\d+\s*$/.test(raw)) value = Number(raw);
  else throw AppError.badRequest(`${name} must be an integer`);
  return Math.min(range.max, Math.max(range.min, value));
}
