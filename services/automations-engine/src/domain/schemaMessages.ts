import type { ErrorObject } from 'ajv';

/** `graph` + `/nodes/2/position` → `graph.nodes[2].position` (JSON pointer to the dotted path users read). */
export function jsonPath(root: string, instancePath: string): string {
  if (instancePath === '') return root;
  return instancePath
    .slice(1)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : `${path}.${part}`), root);
}

const ARTICLE: Record<string, string> = {
  integer: 'an integer',
  number: 'a finite number',
  string: 'a string',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

function typePhrase(type: unknown): string {
  const types = Array.isArray(type) ? type.map(String) : [String(type)];
  return types.map((t) => ARTICLE[t] ?? t).join(' or ');
}

/**
 * One sentence naming the JSON path of an ajv error: `graph.nodes[2].position is required`,
 * `graph.nodes[0].type must be one of start, agent, …`. `root` names the validated value.
 */
export function describeSchemaError(error: ErrorObject, root: string): string {
  const path = jsonPath(root, error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${path}.${String(params.missingProperty)} is required`;
    case 'additionalProperties':
      return `${path}.${String(params.additionalProperty)} is not allowed`;
    case 'type':
      return `${path} must be ${typePhrase(params.type)}`;
    case 'enum':
      return `${path} must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'minimum':
      return `${path} must be at least ${String(params.limit)}`;
    case 'exclusiveMinimum':
      return `${path} must be greater than ${String(params.limit)}`;
    case 'maximum':
      return `${path} must be at most ${String(params.limit)}`;
    case 'minLength':
      return Number(params.limit) === 1 ? `${path} must not be empty` : `${path} must be at least ${String(params.limit)} characters`;
    case 'maxLength':
      return `${path} must be at most ${String(params.limit)} characters`;
    case 'maxItems':
      return `${path} must have at most ${String(params.limit)} items`;
    case 'pattern':
      return `${path} has an invalid format`;
    default:
      return `${path} ${error.message ?? 'is invalid'}`;
  }
}

/** Every ajv error as a sentence, in order, each sentence once. */
export function describeSchemaErrors(errors: readonly ErrorObject[] | null | undefined, root: string): string[] {
  return [...new Set((errors ?? []).map((error) => describeSchemaError(error, root)))];
}
