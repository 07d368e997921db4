// What every answer must be (CONTRACT.md, Errors; External tool transport), as checks that say what
// is wrong (undefined when nothing is): the REST envelope with the code of its status, never a 5xx
// or a hang, and no message naming the system's insides.
import { readdirSync } from 'node:fs';
import type { SystemView } from '@ars/testenv';
import { headerOf, type Outcome, type RawAnswer } from './send.js';

/** CONTRACT.md, Errors: each 4xx status and the codes it may carry. */
export const CODES_BY_STATUS: Readonly<Record<number, readonly string[]>> = {
  400: ['BAD_REQUEST'],
  401: ['UNAUTHORIZED'],
  403: ['FORBIDDEN'],
  404: ['NOT_FOUND'],
  409: ['CONFLICT', 'IDEMPOTENCY_CONFLICT'],
  429: ['RATE_LIMITED'],
};

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Neither a hang nor a connection that ended without an answer nor a 5xx. */
export function transportProblem(outcome: Outcome): string | undefined {
  if (outcome.kind === 'hang') return `no answer within ${outcome.ms} ms (a hang)`;
  if (outcome.kind === 'broken') return `the connection ended without an answer (${outcome.error})`;
  if (outcome.answer.status >= 500) return `a ${outcome.answer.status}: a server error for a client's request`;
  return undefined;
}

/** `Retry-After` on a 429: a number of seconds. */
function retryAfterProblem(answer: RawAnswer): string | undefined {
  const retryAfter = headerOf(answer, 'retry-after');
  return retryAfter !== undefined && /^\d+$/.test(retryAfter) ? undefined : `a 429 without a Retry-After in seconds (${String(retryAfter)})`;
}

/** The REST envelope's failure for a 4xx: exactly `{ok: false, error: {code, message}}`, the code one its status carries. */
export function restFailureProblem(answer: RawAnswer): string | undefined {
  const codes = CODES_BY_STATUS[answer.status];
  if (!codes) return `HTTP ${answer.status}, a status the contract's error table does not have`;
  const body = parse(answer.text);
  if (!isRecord(body) || body.ok !== false || !isRecord(body.error)) return 'a failure not in the envelope {ok: false, error: {code, message}}';
  const keys = Object.keys(body).sort().join(',');
  const errorKeys = Object.keys(body.error).sort().join(',');
  if (keys !== 'error,ok' || errorKeys !== 'code,message') return `the envelope has other fields (${keys}; error: ${errorKeys})`;
  const { code, message } = body.error;
  if (typeof code !== 'string' || !codes.includes(code))
    return `HTTP ${answer.status} with code ${JSON.stringify(code)} (the table gives ${codes.join(' or ')})`;
  if (typeof message !== 'string' || message.trim() === '') return 'a failure without a message';
  if (answer.status === 429) return retryAfterProblem(answer);
  return undefined;
}

/** A REST answer: a 2xx (in the success envelope where the operation documents one) or a 4xx in the failure envelope. */
export function restAnswerProblem(outcome: Outcome, success: { enveloped: boolean; successTypes: readonly string[] }): string | undefined {
  const transport = transportProblem(outcome);
  if (transport || outcome.kind !== 'answer') return transport;
  const { answer } = outcome;
  if (answer.status >= 200 && answer.status < 300) {
    const type = (headerOf(answer, 'content-type') ?? '').split(';')[0]?.trim() ?? '';
    // Another documented form of the success (the run events as Server-Sent Events) is not the JSON envelope.
    if (!success.enveloped || (type !== 'application/json' && success.successTypes.includes(type))) return undefined;
    const body = parse(answer.text);
    return isRecord(body) && body.ok === true && 'data' in body ? undefined : `a ${answer.status} not in the success envelope {ok: true, data}`;
  }
  if (answer.status >= 400 && answer.status < 500) return restFailureProblem(answer);
  return `HTTP ${answer.status}, neither a success nor a client error`;
}

/**
 * Every message of an answer: the REST failure's, a JSON-RPC error's, a failed tool result's text
 * and error message; the whole text when it is not JSON. A success's data is not a message (a
 * trigger's `runtime.provider` names the engine that runs it, as the contract documents).
 */
export function messagesOf(answer: RawAnswer): string[] {
  const body = parse(answer.text);
  if (body === undefined) return answer.text === '' ? [] : [answer.text];
  if (!isRecord(body)) return [];
  const messages: string[] = [];
  if (isRecord(body.error) && typeof body.error.message === 'string') messages.push(body.error.message);
  const result = body.result;
  if (isRecord(result) && result.isError === true) {
    for (const item of Array.isArray(result.content) ? result.content : []) if (isRecord(item) && typeof item.text === 'string') messages.push(item.text);
    const failure = isRecord(result.structuredContent) ? result.structuredContent.error : undefined;
    if (isRecord(failure) && typeof failure.message === 'string') messages.push(failure.message);
  }
  return messages;
}

export interface LeakDetector {
  /** What in the message names the system's insides, if anything (after removing what the request itself sent). */
  leakIn(message: string, sent: readonly string[]): string | undefined;
  /** The names and addresses it looks for (printed when it finds one). */
  names: readonly string[];
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The system's insides, from the services folder's names and the system's own addresses: a service
 * named as a peer ("runs is unreachable"; the names that are also public words, `runs` and
 * `sandboxes`, only so), an internal host and port, the database and bus, a stack frame, a source
 * file, a Node error code or an error class.
 */
export function leakDetector(servicesDir: string, system: SystemView): LeakDetector {
  const services = readdirSync(servicesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
  const addresses = [
    ...Object.values(system.stack.services).map((service) => new URL(service.url).host),
    new URL(system.mongoUrl).host,
    ...system.kafkaBrokers,
  ];
  const publicWords = new Set(['runs', 'sandboxes', 'gateway']);
  const patterns: [string, RegExp][] = [
    ...services.map((name): [string, RegExp] =>
      publicWords.has(name)
        ? [`the ${name} service as a peer`, new RegExp(`\\b${escape(name)} (is unreachable|did not answer|answered|service\\b)`, 'i')]
        : [`the ${name} service`, new RegExp(`(^|[^\\w/-])${escape(name)}(?![\\w-])`, 'i')],
    ),
    ...addresses.map((address): [string, RegExp] => [`an internal address ${address}`, new RegExp(escape(address))]),
    ['a loopback address and port', /\b(127\.\d+\.\d+\.\d+|localhost|\[::1\]):\d+/i],
    ['an internal path', /\/internal\/users\b/],
    ['a stack frame', /\bat [\w$.<>[\] ]+ \(|^\s*at \S+:\d+:\d+|\n\s+at /m],
    ['a source file', /[\w@/.-]+\.(ts|js|mjs|cjs)(:\d+)?\b/],
    ['a Node error code', /\bE(CONN\w*|PIPE|ADDRINUSE|TIMEDOUT|HOSTUNREACH|NOTFOUND|AI_AGAIN)\b/],
    ['the HTTP client', /undici/i],
    ['the database', /mongo|bson|E11000/i],
    ['the bus', /kafka|librdkafka/i],
    ['an error class', /\b(TypeError|ReferenceError|RangeError|SyntaxError|MongoServerError|AbortError)\b/],
    ['a runtime failure', /Cannot read propert|is not a function|is not defined|Maximum call stack/i],
  ];
  return {
    names: [...services, ...addresses],
    leakIn(message, sent) {
      // What the caller sent may come back in a message ("no route for <its path>"): that is no leak.
      let text = message;
      for (const piece of sent) if (piece.length >= 3) text = text.split(piece).join(' ');
      for (const [what, pattern] of patterns) {
        const found = pattern.exec(text);
        if (found) return `${what}: ${JSON.stringify(found[0])} in ${JSON.stringify(message.slice(0, 300))}`;
      }
      return undefined;
    },
  };
}

/** The forms a sent value may come back in: as sent, percent-decoded, JSON-decoded. */
export function echoForms(...values: string[]): string[] {
  const forms = new Set<string>();
  for (const value of values) {
    forms.add(value);
    try {
      forms.add(decodeURIComponent(value));
    } catch {
      // not percent-encoded text
    }
    const decoded = parse(value);
    if (typeof decoded === 'string') forms.add(decoded);
  }
  return [...forms];
}

// ── JSON-RPC (POST /mcp) ──────────────────────────────────────────────────────────────────────────

/** What a JSON-RPC answer must be, as mcpCases.ts works it out from the body sent. */
export type RpcExpectation = (
  | { kind: 'error'; status: number; code: number }
  | { kind: 'notification' }
  | { kind: 'result'; method: string; id: unknown }
  | { kind: 'result or invalid params'; method: string; id: unknown }
) & { or?: { status: number; code: number } };

const sameId = (left: unknown, right: unknown): boolean => JSON.stringify(left) === JSON.stringify(right) || (Object.is(left, -0) && right === 0);

/** A tool result: `content`, `isError`; a failed operation's `structuredContent.error` with a code of the table and its status. */
function toolResultProblem(result: Record<string, unknown>): string | undefined {
  if (!Array.isArray(result.content) || typeof result.isError !== 'boolean')
    return `a tools/call result without content and isError: ${JSON.stringify(result).slice(0, 200)}`;
  if (result.isError !== true) return undefined;
  const error = isRecord(result.structuredContent) ? result.structuredContent.error : undefined;
  if (!isRecord(error)) return 'a failed tool result without structuredContent.error';
  const { code, status, message } = error;
  if (typeof status !== 'number' || status >= 500)
    return `a failed tool result with status ${String(status)} (${String(code)}: ${String(message)}): a server error for a client's call`;
  const codes = CODES_BY_STATUS[status];
  if (!codes || typeof code !== 'string' || !codes.includes(code))
    return `a failed tool result with status ${status} and code ${String(code)}, not the table's`;
  return undefined;
}

/** The JSON-RPC table, exactly: the status, the code (never -32603 for what the client sent), the id echoed, a result where one is due. */
export function rpcProblem(expected: RpcExpectation, outcome: Outcome): string | undefined {
  const transport = transportProblem(outcome);
  if (transport || outcome.kind !== 'answer') return transport;
  const { answer } = outcome;
  const body = parse(answer.text);
  const error = isRecord(body) && isRecord(body.error) ? body.error : undefined;
  if (answer.status === 429) return error?.code === -32002 ? retryAfterProblem(answer) : `a 429 with code ${String(error?.code)}, not -32002`;
  if (expected.or && answer.status === expected.or.status && error?.code === expected.or.code) return undefined;
  if (expected.kind === 'notification')
    return answer.status === 202 && answer.text === '' ? undefined : `HTTP ${answer.status} ${answer.text.slice(0, 200)} for a notification (202, no body)`;
  if (!isRecord(body) || body.jsonrpc !== '2.0') return `HTTP ${answer.status} not a JSON-RPC answer: ${answer.text.slice(0, 200)}`;
  const got = `HTTP ${answer.status} ${error ? `error ${String(error.code)} ${JSON.stringify(error.message)}` : 'with a result'}${expected.or ? ` (nor ${expected.or.status} ${expected.or.code})` : ''}`;
  if (expected.kind === 'error') {
    if (answer.status !== expected.status || error?.code !== expected.code) return `${got}, not HTTP ${expected.status} ${expected.code}`;
    if (typeof error.message !== 'string' || error.message === '') return 'an error without a message';
    return undefined;
  }
  if (answer.status !== 200) return `${got}, not HTTP 200`;
  if (!sameId(body.id, expected.id)) return `the answer's id ${JSON.stringify(body.id)} is not the request's ${JSON.stringify(expected.id)}`;
  if (error) {
    if (expected.kind === 'result or invalid params' && error.code === -32602) return undefined;
    return `${got}, not a result`;
  }
  if (!isRecord(body.result)) return 'an answer with neither result nor error';
  return expected.method === 'tools/call' ? toolResultProblem(body.result) : undefined;
}

/** A validator's raw output as a message: zod's array of issues, or an object dump. */
export function rawDumpIn(message: string): string | undefined {
  const trimmed = message.trim();
  const tail = trimmed.slice(trimmed.search(/[[{]/));
  if (/^[[{]/.test(tail) && parse(tail) !== undefined && /"(code|expected|received|path|instancePath|keyword)"\s*:/.test(tail))
    return `a validator's raw output: ${JSON.stringify(message.slice(0, 300))}`;
  if (/"(expected|received|instancePath|keyword)"\s*:/.test(message)) return `a validator's raw output: ${JSON.stringify(message.slice(0, 300))}`;
  return undefined;
}
