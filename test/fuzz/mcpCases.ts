// The cases of POST /mcp: JSON-RPC envelopes written by hand (every member present, absent or of
// another type; batches; not JSON at all) and each tool's `tools/call` with its arguments built from
// the `inputSchema` tools/list gives (the fuzzing tenant's own values) and one of them made hostile.
// Beside each case, what CONTRACT.md's JSON-RPC table says it must answer, worked out from the text
// sent: parsed as the server parses it, the arguments checked against the same schema.
import { Ajv, type ValidateFunction } from 'ajv';
import fc from 'fast-check';
import { Hostile, hostileAuthorization, hostileContentType, hostileJson, nested, preview } from './hostile.js';
import { ApiModel, type Schema } from './openApi.js';
import { bodyWith, type Known } from './restCases.js';
import type { RawRequest } from './send.js';

export interface ListedTool {
  name: string;
  inputSchema: Exclude<Schema, boolean>;
}

/** What an answer must be (CONTRACT.md, External tool transport); `or`, an error answer also right. */
export type Expected = (
  | { kind: 'error'; status: number; code: number }
  | { kind: 'notification' }
  | { kind: 'result'; method: string; id: unknown }
  /** A request whose outcome the contract leaves to the method (`initialize` with other params): a result or -32602, never another code. */
  | { kind: 'result or invalid params'; method: string; id: unknown }
) & { why: string; or?: { status: number; code: number } };

export class RpcCase {
  constructor(
    readonly name: string,
    /** What was made hostile. */
    readonly target: string,
    readonly value: Hostile,
    readonly request: RawRequest,
    readonly expected: Expected,
  ) {}

  get sent(): string[] {
    return [this.value.text, ...(this.request.body === undefined ? [] : [this.request.body])];
  }

  [fc.toStringMethod](): string {
    return `${this.name} — ${this.target} ← ${fc.stringify(this.value)}\n    body ${preview(this.request.body ?? '', 200)}\n    expected: ${this.expected.why}`;
  }
}

export const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' } as const;
const KNOWN_METHODS = ['initialize', 'ping', 'tools/list', 'tools/call'];
const REQUEST_MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params']);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The contract's verdict on a body: -32700 when it is not JSON; -32600 when it is JSON but not one
 * JSON-RPC request object (a batch, a scalar, `jsonrpc` not "2.0", `method` not a string, `id` not a
 * string or an integer, `params` not an object); a notification (no `id`) is 202; an unknown
 * method -32601; for tools/call, `name` not a string or `arguments` not an object -32602, an unknown
 * tool -32601, arguments its schema refuses -32602; else a result.
 */
export function expectedFor(body: string, tools: ReadonlyMap<string, ValidateFunction>): Expected {
  const verdict = verdictFor(body, tools);
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return verdict;
  }
  // The contract names no size or depth limit for /mcp: a body over the REST API's 1 MB or nested a
  // thousand deep gets its own answer, or is refused whole as an invalid request (a limit the
  // transport sets). Never -32700 (it is JSON), -32603 or a 5xx.
  if (Buffer.byteLength(body) > 1_048_576) return orInvalidRequest(verdict, 'a body over 1 MB');
  if (depthOf(message) >= 1_000) return orInvalidRequest(verdict, 'nested a thousand levels deep');
  // A request with a member JSON-RPC does not define (`result`, `error`, `__proto__`, anything else)
  // is not strictly a request (the SDK's envelope schema is strict): the transport may refuse it as
  // an invalid request, or answer the request it also is.
  if (isObject(message) && Object.keys(message).some((key) => !REQUEST_MEMBERS.has(key)))
    return orInvalidRequest(verdict, 'it has a member a JSON-RPC request does not define');
  return verdict;
}

/** The verdict, or 400 -32600 as well (a request the transport may refuse whole). */
export function orInvalidRequest(verdict: Expected, because: string): Expected {
  if (verdict.kind === 'error' && verdict.code === -32600) return verdict;
  return { ...verdict, or: { status: 400, code: -32600 }, why: `${verdict.why}, or 400 -32600 (${because})` };
}

function verdictFor(body: string, tools: ReadonlyMap<string, ValidateFunction>): Expected {
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return { kind: 'error', status: 400, code: -32700, why: 'not JSON: 400 -32700' };
  }
  if (!isObject(message)) return { kind: 'error', status: 400, code: -32600, why: 'JSON but not a request object: 400 -32600' };
  const { jsonrpc, method, params } = message;
  const hasId = Object.prototype.hasOwnProperty.call(message, 'id');
  const id = message.id;
  if (jsonrpc !== '2.0') return { kind: 'error', status: 400, code: -32600, why: 'jsonrpc is not "2.0": 400 -32600' };
  if (typeof method !== 'string') return { kind: 'error', status: 400, code: -32600, why: 'method is not a string: 400 -32600' };
  // MCP narrows JSON-RPC's id: "Requests MUST include a string or integer ID … MUST NOT be null".
  if (hasId && !(typeof id === 'string' || Number.isSafeInteger(id)))
    return { kind: 'error', status: 400, code: -32600, why: 'id is neither a string nor an integer: 400 -32600' };
  if (params !== undefined && !isObject(params)) return { kind: 'error', status: 400, code: -32600, why: 'params is not an object: 400 -32600' };
  if (!hasId) return { kind: 'notification', why: 'no id, a notification: 202 without a body' };
  if (!KNOWN_METHODS.includes(method)) return { kind: 'error', status: 200, code: -32601, why: `method ${JSON.stringify(method)} does not exist: 200 -32601` };
  if (method === 'tools/call') {
    const name = params?.name;
    const args = params?.arguments;
    if (typeof name !== 'string') return { kind: 'error', status: 200, code: -32602, why: 'tools/call without a string name: 200 -32602' };
    if (args !== undefined && !isObject(args)) return { kind: 'error', status: 200, code: -32602, why: 'arguments is not an object: 200 -32602' };
    const validate = tools.get(name);
    if (!validate) return { kind: 'error', status: 200, code: -32601, why: `no tool ${JSON.stringify(name)}: 200 -32601` };
    if (!validate(args ?? {}))
      return { kind: 'error', status: 200, code: -32602, why: `arguments its inputSchema refuses: 200 -32602 (${validate.errors?.[0]?.message ?? ''})` };
    return { kind: 'result', method, id, why: 'valid arguments: 200 with a tool result (isError when the operation fails)' };
  }
  if (method === 'tools/list' && params?.cursor !== undefined && typeof params.cursor !== 'string')
    return { kind: 'result or invalid params', method, id, why: 'tools/list with a cursor that is not a string: a result or 200 -32602' };
  if (method === 'initialize') return { kind: 'result or invalid params', method, id, why: 'initialize: a result, or 200 -32602 for params it cannot take' };
  return { kind: 'result', method, id, why: `${method}: 200 with a result` };
}

/** How deep a parsed value nests (iterative: the values here are 10,000 deep). */
function depthOf(value: unknown): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [current, depth] = next;
    if (typeof current !== 'object' || current === null) continue;
    deepest = Math.max(deepest, depth + 1);
    for (const child of Object.values(current)) pending.push([child, depth + 1]);
  }
  return deepest;
}

/** A validator per tool, over the inputSchema tools/list gives (the server's own Ajv settings). */
export function toolValidators(tools: readonly ListedTool[]): Map<string, ValidateFunction> {
  const ajv = new Ajv({ allErrors: false, strict: false });
  return new Map(tools.map((tool) => [tool.name, ajv.compile(tool.inputSchema)]));
}

// ── The envelope ─────────────────────────────────────────────────────────────────────────────────

const absent = new Hostile('absent', '');
const named = (pairs: readonly (readonly [string, string])[]): fc.Arbitrary<Hostile> =>
  fc.constantFrom(...pairs.map(([label, text]) => new Hostile(label, text)));

const JSONRPC = named([
  ['"1.0"', '"1.0"'],
  ['the number 2', '2'],
  ['null', 'null'],
  ['"2.0 "', '"2.0 "'],
  ['empty', '""'],
  ['"2.0" with a NUL', '"2.0\\u0000"'],
]);
const IDS = named([
  ['a number', '7'],
  ['a string', '"req-1"'],
  ['null', 'null'],
  ['a fraction', '1.5'],
  ['negative zero', '-0'],
  ['1e308', '1e308'],
  ['2^53+1', '9007199254740993'],
  ['the empty string', '""'],
  ['a lone surrogate', '"\\ud800"'],
  ['a long string', JSON.stringify('i'.repeat(10_000))],
  ['an object', '{"a":1}'],
  ['an array', '[1]'],
  ['true', 'true'],
  ['false', 'false'],
]);
const METHODS = named([
  ['initialize', '"initialize"'],
  ['ping', '"ping"'],
  ['tools/list', '"tools/list"'],
  ['tools/call', '"tools/call"'],
  ['notifications/initialized', '"notifications/initialized"'],
  ['an unknown method', '"resources/list"'],
  ['tools/call with a space', '"tools/call "'],
  ['TOOLS/LIST', '"TOOLS/LIST"'],
  ['__proto__', '"__proto__"'],
  ['constructor', '"constructor"'],
  ['toString', '"toString"'],
  ['rpc.discover', '"rpc.discover"'],
  ['empty', '""'],
  ['NUL', '"\\u0000"'],
  ['a number', '1'],
  ['null', 'null'],
  ['an array', '["ping"]'],
]);
const PARAMS = fc.oneof(
  named([
    ['an empty object', '{}'],
    ['initialize params', '{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}'],
    ['an unknown protocolVersion', '{"protocolVersion":"1999-01-01","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}'],
    ['tools/call of an unknown tool', '{"name":"svc_no_such_tool","arguments":{}}'],
    ['tools/call with a name that is a number', '{"name":1,"arguments":{}}'],
    ['tools/call with arguments an array', '{"name":"svc_list_repos","arguments":[]}'],
    ['tools/call with arguments a string', '{"name":"svc_list_repos","arguments":"x"}'],
    ['tools/call with arguments null', '{"name":"svc_list_repos","arguments":null}'],
    ['tools/call without arguments', '{"name":"svc_list_repos"}'],
    ['tools/list with a cursor', '{"cursor":"x"}'],
    ['tools/list with a cursor that is a number', '{"cursor":1}'],
    ['_meta', '{"_meta":{"progressToken":1}}'],
    ['__proto__', '{"__proto__":{"polluted":true}}'],
    ['by position', '[1,2]'],
    ['an empty array', '[]'],
    ['a string', '"x"'],
    ['a number', '1'],
    ['null', 'null'],
    ['true', 'true'],
  ]),
  fc.constantFrom(1_000, 10_000).map((depth) => new Hostile(`objects nested ${depth} deep`, nested('object', depth))),
  hostileJson,
);
const EXTRA = named([
  ['a result member', '"result":{}'],
  ['an error member', '"error":{"code":1,"message":"x"}'],
  ['an unknown member', '"fuzz":1'],
  ['a __proto__ member', '"__proto__":{"polluted":true}'],
]);

const member = (name: string, value: Hostile): string => (value === absent ? '' : `"${name}":${value.text}`);

/** One JSON-RPC object: each member valid, absent or hostile. */
const rpcObject = fc
  .record({
    jsonrpc: fc.oneof(
      { arbitrary: fc.constant(new Hostile('"2.0"', '"2.0"')), weight: 5 },
      { arbitrary: fc.constant(absent), weight: 1 },
      { arbitrary: JSONRPC, weight: 1 },
    ),
    id: fc.oneof({ arbitrary: fc.constant(new Hostile('1', '1')), weight: 3 }, { arbitrary: fc.constant(absent), weight: 1 }, { arbitrary: IDS, weight: 3 }),
    method: fc.oneof({ arbitrary: METHODS, weight: 6 }, { arbitrary: fc.constant(absent), weight: 1 }),
    params: fc.oneof({ arbitrary: fc.constant(absent), weight: 1 }, { arbitrary: PARAMS, weight: 4 }),
    extra: fc.oneof({ arbitrary: fc.constant(absent), weight: 4 }, { arbitrary: EXTRA, weight: 1 }),
  })
  .map(({ jsonrpc, id, method, params, extra }) => {
    const members = [member('jsonrpc', jsonrpc), member('id', id), member('method', method), member('params', params), extra === absent ? '' : extra.text];
    const label = `jsonrpc ${jsonrpc.label}, id ${id.label}, method ${method.label}, params ${params.label}${extra === absent ? '' : `, ${extra.label}`}`;
    return new Hostile(label, `{${members.filter((text) => text !== '').join(',')}}`);
  });

/** Whole bodies: one object (mostly), a batch, a scalar, not JSON, nested deep. */
const rpcBody = fc.oneof(
  { arbitrary: rpcObject, weight: 8 },
  {
    arbitrary: fc
      .array(rpcObject, { minLength: 0, maxLength: 3 })
      .map((items) => new Hostile(`a batch of ${items.length}`, `[${items.map((item) => item.text).join(',')}]`)),
    weight: 1,
  },
  {
    arbitrary: named([
      ['empty', ''],
      ['not JSON', '{"jsonrpc":"2.0",'],
      ['single quotes', "{'jsonrpc':'2.0','id':1,'method':'ping'}"],
      ['NaN', '{"jsonrpc":"2.0","id":NaN,"method":"ping"}'],
      ['a number', '1'],
      ['a string', '"ping"'],
      ['null', 'null'],
      ['a valid request then garbage', '{"jsonrpc":"2.0","id":1,"method":"ping"}x'],
      ['BOM then a valid request', '\uFEFF{"jsonrpc":"2.0","id":1,"method":"ping"}'],
    ]),
    weight: 2,
  },
  { arbitrary: fc.constantFrom(1_000, 10_000).map((depth) => new Hostile(`arrays nested ${depth} deep`, nested('array', depth))), weight: 1 },
);

/** A header made hostile now and then (the transport checks authentication and Origin before the body, and reads Content-Type). */
const rpcHeaders = fc.oneof(
  { arbitrary: fc.constant<[string, Hostile] | undefined>(undefined), weight: 8 },
  { arbitrary: hostileAuthorization.map((value): [string, Hostile] => ['authorization', value]), weight: 1 },
  { arbitrary: hostileContentType.map((value): [string, Hostile] => ['content-type', value]), weight: 1 },
  {
    arbitrary: named([
      ['a foreign origin', 'https://evil.example'],
      ['origin null', 'null'],
      ['a long origin', `https://${'o'.repeat(8_000)}.example`],
    ]).map((value): [string, Hostile] => ['origin', value]),
    weight: 1,
  },
);

/** The envelope's cases. */
export function envelopeCases(path: string, tools: ReadonlyMap<string, ValidateFunction>): fc.Arbitrary<RpcCase> {
  return fc.tuple(rpcBody, rpcHeaders).map(([body, header]) => {
    const headers: Record<string, string> = { ...MCP_HEADERS };
    let authorization: RawRequest['authorization'] = 'pool';
    let expected = expectedFor(body.text, tools);
    let target = 'the body';
    let value = body;
    if (header) {
      const [name, hostile] = header;
      target = `header ${name} (body ${body.label})`;
      value = hostile;
      if (name === 'authorization') {
        authorization = hostile.text;
        expected = { kind: 'error', status: 401, code: -32001, why: 'a PAT that is not one: 401 -32001, whatever the body' };
      } else if (name === 'origin') {
        headers.origin = hostile.text;
        expected = { kind: 'error', status: 403, code: -32003, why: 'a browser origin not allowed: 403 -32003, whatever the body' };
      } else {
        headers[name] = hostile.text;
        // The contract has requests carry `Content-Type: application/json` and names no answer for
        // another: the body's own answer (the type ignored), or the request refused as invalid.
        expected = orInvalidRequest(expected, 'not sent as application/json');
      }
    }
    return new RpcCase('envelope', target, value, { method: 'POST', path, headers, body: body.text, authorization }, expected);
  });
}

// ── Each tool's arguments ────────────────────────────────────────────────────────────────────────

const schemaModel = new ApiModel({ openapi: '3.1.0', paths: {} });

/** A `tools/call` body with `argumentsText` as the arguments. */
const callBody = (id: number, name: string, argumentsText: string): string =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":${name},"arguments":${argumentsText}}}`;

export function toolArguments(tool: ListedTool, known: Known, key: string): Record<string, unknown> {
  const own = (name: string): unknown => (name === 'idempotencyKey' ? key : known(tool.name, name));
  return schemaModel.baseValue(tool.inputSchema, own) as Record<string, unknown>;
}

/** A tool's cases: one argument hostile, the arguments whole, or the tool's name. */
export function toolCases(path: string, tool: ListedTool, known: Known, tools: ReadonlyMap<string, ValidateFunction>): fc.Arbitrary<RpcCase> {
  const build = (target: string, value: Hostile, body: string): RpcCase =>
    new RpcCase(tool.name, target, value, { method: 'POST', path, headers: MCP_HEADERS, body, authorization: 'pool' }, expectedFor(body, tools));
  const targets: fc.WeightedArbitrary<RpcCase>[] = [];
  const own = (name: string): unknown => known(tool.name, name);
  for (const field of schemaModel.fields(tool.inputSchema)) {
    targets.push({
      weight: 3,
      arbitrary: fc.tuple(hostileJson, fc.uuid()).map(([value, key]) => {
        const base = toolArguments(tool, known, `fuzz-${key}`);
        return build(
          `argument ${field.join('.')}`,
          value,
          callBody(1, JSON.stringify(tool.name), bodyWith(schemaModel, tool.inputSchema, base, field, value.text, own)),
        );
      }),
    });
  }
  targets.push({
    weight: 2,
    arbitrary: fc.tuple(fc.oneof(PARAMS, hostileJson), fc.boolean(), fc.uuid()).map(([value, beside, key]) => {
      const base = JSON.stringify(toolArguments(tool, known, `fuzz-${key}`));
      if (!beside) return build('the arguments whole', value, callBody(1, JSON.stringify(tool.name), value.text));
      const inner = base.slice(1, -1);
      return build(
        'an unknown argument',
        value,
        callBody(1, JSON.stringify(tool.name), `{${inner}${inner === '' ? '' : ','}"fuzzUnknownArgument":${value.text}}`),
      );
    }),
  });
  targets.push({
    weight: 1,
    arbitrary: fc
      .tuple(hostileJson, fc.uuid())
      .map(([value, key]) => build('the tool name', value, callBody(1, value.text, JSON.stringify(toolArguments(tool, known, `fuzz-${key}`))))),
  });
  targets.push({
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom(
          new Hostile('a NUL after the name', '\u0000'),
          new Hostile('a bidirectional override before the name', '\u202E'),
          new Hostile('a trailing space', ' '),
          new Hostile('upper case', ''),
        ),
        fc.uuid(),
      )
      .map(([change, key]) => {
        const name =
          change.label === 'upper case'
            ? tool.name.toUpperCase()
            : change.label.includes('before')
              ? `${change.text}${tool.name}`
              : `${tool.name}${change.text}`;
        return build('the tool name', change, callBody(1, JSON.stringify(name), JSON.stringify(toolArguments(tool, known, `fuzz-${key}`))));
      }),
  });
  return fc.oneof(...targets);
}

/** The tool's valid call with another tenant's id in one argument, for each argument that names a resource. */
export function foreignToolCases(
  path: string,
  tool: ListedTool,
  known: Known,
  foreign: (template: string, name: string) => string | undefined,
  tools: ReadonlyMap<string, ValidateFunction>,
): RpcCase[] {
  const base = toolArguments(tool, known, `fuzz-foreign-${tool.name}`);
  return Object.keys(schemaModel.propertiesOf(tool.inputSchema)).flatMap((name) => {
    const id = foreign(tool.name, name);
    if (id === undefined) return [];
    const value = new Hostile(`another tenant's ${name}`, JSON.stringify(id));
    const body = callBody(1, JSON.stringify(tool.name), JSON.stringify({ ...base, [name]: id }));
    return [
      new RpcCase(tool.name, `argument ${name}`, value, { method: 'POST', path, headers: MCP_HEADERS, body, authorization: 'pool' }, expectedFor(body, tools)),
    ];
  });
}
