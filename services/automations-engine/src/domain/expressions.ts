import { Environment, type ASTNode } from '@marcbachmann/cel-js';

/** A JSON value: what expressions read from their context and give back. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Parse limits: an expression is a condition or a value, not a program. */
export const EXPRESSION_LIMITS = {
  maxLength: 4000,
  maxAstNodes: 500,
  maxDepth: 32,
  maxListElements: 100,
  maxMapEntries: 100,
  maxCallArguments: 8,
} as const;

/** Which variables an expression may read where it stands; `event` only inside or after an await_event. */
export interface ExpressionScope {
  event: boolean;
}

export interface CheckOptions {
  /** `bool` for conditions and matches: the result type must be `bool` or `dyn` (a `dyn` is checked when evaluated). */
  expect: 'bool' | 'any';
  scope: ExpressionScope;
}

export type ExpressionCheck = { ok: true; type: string } | { ok: false; message: string };

/** What an expression reads when evaluated. */
export interface ExpressionContext {
  input: Record<string, JsonValue>;
  vars: Record<string, JsonValue>;
  /** `nodes.<id>.status` and `nodes.<id>.output`, for the nodes that ran before. */
  nodes: Record<string, { status: string; output: JsonValue }>;
  run: { id: string; repoId: string };
  event?: { name: string; data: JsonValue; receivedAt: string };
}

/** A refusal or failure of one expression; the message names the expression. */
export class ExpressionError extends Error {
  constructor(
    readonly expression: string,
    detail: string,
  ) {
    super(`expression ${JSON.stringify(expression)}: ${detail}`);
    this.name = 'ExpressionError';
  }
}

// `input` is dyn: its shape is whatever the start node's inputSchema allows; typing it from the
// schema would need a CEL type per schema, which the library only offers as classes.
const { maxLength: _maxLength, ...parseLimits } = EXPRESSION_LIMITS;
// Mixed literals (`{"n": 1, "tags": ["a"]}`) are allowed: a set_variable value builds JSON.
const withoutEvent = new Environment({ limits: parseLimits, homogeneousAggregateLiterals: false })
  .registerVariable('input', 'dyn')
  .registerVariable('vars', 'map<string, dyn>')
  .registerVariable('nodes', 'map<string, map<string, dyn>>')
  .registerVariable('run', 'map<string, string>');
const withEvent = withoutEvent.clone().registerVariable('event', 'map<string, dyn>');

function environment(scope: ExpressionScope): Environment {
  return scope.event ? withEvent : withoutEvent;
}

/**
 * Functions refused at check time. `matches` runs its pattern as a JS RegExp, and a pattern from a
 * user can backtrack for minutes (ReDoS); CEL offers `contains`, `startsWith`, `endsWith` instead.
 */
const REFUSED_FUNCTIONS = new Set(['matches']);

function refusedFunctionIn(ast: ASTNode): string | undefined {
  if (ast.op === 'call' || ast.op === 'rcall') {
    const name = ast.args[0];
    if (REFUSED_FUNCTIONS.has(name)) return name;
  }
  const args: unknown = ast.args;
  if (!Array.isArray(args)) return undefined;
  for (const child of args.flat()) {
    if (isAstNode(child)) {
      const found = refusedFunctionIn(child);
      if (found) return found;
    }
  }
  return undefined;
}

function isAstNode(value: unknown): value is ASTNode {
  return typeof value === 'object' && value !== null && 'op' in value && 'args' in value;
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}

/** Parses and refuses what no scope allows (length, parse limits, refused functions); throws ExpressionError. */
function parse(expression: string, scope: ExpressionScope): ReturnType<Environment['parse']> {
  if (expression.trim() === '') throw new ExpressionError(expression, 'is empty');
  if (expression.length > EXPRESSION_LIMITS.maxLength) {
    throw new ExpressionError(expression.slice(0, 40) + '…', `is longer than ${EXPRESSION_LIMITS.maxLength} characters`);
  }
  let parsed: ReturnType<Environment['parse']>;
  try {
    parsed = environment(scope).parse(expression);
  } catch (error) {
    throw new ExpressionError(expression, firstLine(error));
  }
  const refused = refusedFunctionIn(parsed.ast);
  if (refused) throw new ExpressionError(expression, `${refused}() is not available (regular expressions from users are refused)`);
  return parsed;
}

/** Type-checks an expression in its scope without evaluating it (publish, validate). */
export function checkExpression(expression: string, options: CheckOptions): ExpressionCheck {
  let parsed: ReturnType<Environment['parse']>;
  try {
    parsed = parse(expression, options.scope);
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  const result = parsed.check();
  if (!result.valid) return { ok: false, message: new ExpressionError(expression, firstLine(result.error)).message };
  const type = result.type ?? 'dyn';
  if (options.expect === 'bool' && type !== 'bool' && type !== 'dyn') {
    return { ok: false, message: new ExpressionError(expression, `must be a boolean, is ${type}`).message };
  }
  return { ok: true, type };
}

/**
 * JSON integers become CEL ints (BigInt) so `input.count + 1` and `size(x) == input.count` work;
 * numbers with a fraction stay doubles.
 */
function toCel(value: unknown): unknown {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(toCel);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, toCel(item)]));
  }
  return value;
}

function toJson(value: unknown, expression: string): JsonValue {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
  if (typeof value === 'bigint') {
    if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw new ExpressionError(expression, `result ${value} is outside the safe integer range`);
    }
    return Number(value);
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new ExpressionError(expression, `result ${value} is not a finite number`);
    return value;
  }
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((item) => toJson(item, expression));
  if (value instanceof Map) return Object.fromEntries([...value].map(([key, item]) => [String(key), toJson(item, expression)]));
  if (typeof value === 'object' && value.constructor === Object) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, toJson(item, expression)]));
  }
  throw new ExpressionError(expression, 'result has no JSON form');
}

/**
 * Evaluates an expression against a run's context. A missing key, a type error or a result without
 * a JSON form throws ExpressionError naming the expression. `event` is in scope when given.
 */
export function evaluateExpression(expression: string, context: ExpressionContext): JsonValue {
  const parsed = parse(expression, { event: context.event !== undefined });
  let result: unknown;
  try {
    result = parsed(toCel(context) as Record<string, unknown>);
  } catch (error) {
    throw new ExpressionError(expression, firstLine(error));
  }
  return toJson(result, expression);
}

/** A condition or an await_event match: its result must be a boolean, else ExpressionError. */
export function evaluateCondition(expression: string, context: ExpressionContext): boolean {
  const value = evaluateExpression(expression, context);
  if (typeof value !== 'boolean') throw new ExpressionError(expression, `must give a boolean, gave ${JSON.stringify(value)}`);
  return value;
}
