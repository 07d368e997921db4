import { Ajv, type ValidateFunction } from 'ajv';
import type { NodeType } from './flowGraph.js';
import { describeSchemaErrors } from './schemaMessages.js';

export type Harness = 'codex' | 'claude-code';
export const HARNESSES: readonly Harness[] = ['codex', 'claude-code'];

export interface StartData {
  inputSchema?: Record<string, unknown>;
}
export interface AgentData {
  agentId: string;
  prompt?: string;
  modelId?: string | null;
  harness?: Harness;
}
export interface ConditionData {
  expression: string;
}
export interface JoinData {
  mode?: 'all' | 'any';
}
export interface DelayData {
  seconds: number;
}
export interface AwaitEventData {
  event: string;
  match?: string;
  timeoutSeconds: number;
}
export interface SetVariableData {
  name: string;
  value: string;
}
export type EmptyData = Record<string, never>;

/** The `data` of each node type (DESIGN.md, Automations). */
export interface NodeDataByType {
  start: StartData;
  agent: AgentData;
  condition: ConditionData;
  parallel: EmptyData;
  join: JoinData;
  delay: DelayData;
  await_event: AwaitEventData;
  set_variable: SetVariableData;
  end: EmptyData;
}

export const NODE_DATA_LIMITS = {
  /** The contract's `prompt` limit of `POST /runs`. */
  maxPromptLength: 100_000,
  /** delay `seconds` and await_event `timeoutSeconds`: 1 s to 30 days. */
  minSeconds: 1,
  maxSeconds: 2_592_000,
  maxEventNameLength: 200,
  maxIdLength: 200,
} as const;

/** A variable name CEL can read as `vars.<name>`: an identifier of at most 64 characters… */
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** …other than the words CEL's parser takes for literals or operators (`vars.in` does not parse). */
export const RESERVED_VARIABLE_NAMES: ReadonlySet<string> = new Set(['in', 'true', 'false', 'null']);

const seconds = { type: 'number', minimum: NODE_DATA_LIMITS.minSeconds, maximum: NODE_DATA_LIMITS.maxSeconds };
const expression = { type: 'string', minLength: 1 };
const empty = { type: 'object', additionalProperties: false, properties: {} };

// Every schema is closed (`additionalProperties: false`): a misspelt key (`timeout` for
// `timeoutSeconds`) is a publish problem rather than a setting silently ignored.
const SCHEMAS: Record<NodeType, object> = {
  start: {
    type: 'object',
    additionalProperties: false,
    properties: { inputSchema: { type: 'object' } },
  },
  agent: {
    type: 'object',
    required: ['agentId'],
    additionalProperties: false,
    properties: {
      // An empty agentId is a draft's placeholder; publish reports it as an unbound agent.
      agentId: { type: 'string', maxLength: NODE_DATA_LIMITS.maxIdLength },
      prompt: { type: 'string', maxLength: NODE_DATA_LIMITS.maxPromptLength },
      modelId: { type: ['string', 'null'], minLength: 1, maxLength: NODE_DATA_LIMITS.maxIdLength },
      harness: { type: 'string', enum: HARNESSES },
    },
  },
  condition: { type: 'object', required: ['expression'], additionalProperties: false, properties: { expression } },
  parallel: empty,
  join: { type: 'object', additionalProperties: false, properties: { mode: { type: 'string', enum: ['all', 'any'] } } },
  delay: { type: 'object', required: ['seconds'], additionalProperties: false, properties: { seconds } },
  await_event: {
    type: 'object',
    required: ['event', 'timeoutSeconds'],
    additionalProperties: false,
    properties: {
      event: { type: 'string', minLength: 1, maxLength: NODE_DATA_LIMITS.maxEventNameLength },
      match: expression,
      timeoutSeconds: seconds,
    },
  },
  set_variable: {
    type: 'object',
    required: ['name', 'value'],
    additionalProperties: false,
    properties: { name: { type: 'string', pattern: VARIABLE_NAME.source }, value: expression },
  },
  end: empty,
};

const ajv = new Ajv({ allErrors: true, strict: true, strictNumbers: true, allowUnionTypes: true });
// Each node type's validator is compiled on first use: a start compiles nothing it does not serve.
const validators = new Map<NodeType, ValidateFunction>();
function validatorOf(type: NodeType): ValidateFunction {
  let validate = validators.get(type);
  if (!validate) {
    validate = ajv.compile(SCHEMAS[type]);
    validators.set(type, validate);
  }
  return validate;
}

// A separate, lenient instance for users' input schemas: unknown keywords and formats are theirs.
// Nothing stays in it: each schema leaves its cache once compiled (one instance serves every
// trigger), and `$id`, which ajv would register instance-wide, is refused.
const inputSchemaAjv = new Ajv({ allErrors: true, strict: false, validateFormats: false, addUsedSchema: false });

export type InputSchemaCompile = { ok: true; validate: ValidateFunction } | { ok: false; message: string };

function holdsId(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(holdsId);
  if (typeof value !== 'object' || value === null) return false;
  return Object.hasOwn(value, '$id') || Object.values(value).some(holdsId);
}

/** Compiles a start node's `inputSchema` (the trigger checks `input` with the result). */
export function compileInputSchema(schema: Record<string, unknown>): InputSchemaCompile {
  if (holdsId(schema)) return { ok: false, message: '$id is not supported in an input schema' };
  try {
    return { ok: true, validate: inputSchemaAjv.compile(schema) };
  } catch (error) {
    return { ok: false, message: (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? 'is invalid' };
  } finally {
    inputSchemaAjv.removeSchema(schema);
  }
}

/**
 * The problems of one node's `data` for its type, each naming its path under `root`
 * (`data.seconds must be at most 2592000`). A start node's `inputSchema` must also compile.
 */
export function nodeDataProblems(type: NodeType, data: unknown, root = 'data'): string[] {
  const validate = validatorOf(type);
  if (!validate(data)) return describeSchemaErrors(validate.errors, root);
  if (type === 'set_variable' && RESERVED_VARIABLE_NAMES.has((data as SetVariableData).name)) {
    return [`${root}.name must not be one of ${[...RESERVED_VARIABLE_NAMES].join(', ')} (vars.<name> would not parse)`];
  }
  if (type === 'start') {
    const { inputSchema } = data as StartData;
    if (inputSchema !== undefined) {
      const compiled = compileInputSchema(inputSchema);
      if (!compiled.ok) return [`${root}.inputSchema is not a valid JSON Schema: ${compiled.message}`];
    }
  }
  return [];
}

/** The data of a node whose data passed `nodeDataProblems`, typed by its node type. */
export function typedNodeData<T extends NodeType>(_type: T, data: Record<string, unknown>): NodeDataByType[T] {
  return data as unknown as NodeDataByType[T];
}
