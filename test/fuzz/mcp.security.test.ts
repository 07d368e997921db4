// Issue 32: the fuzzer over POST /mcp (CONTRACT.md, External tool transport): JSON-RPC envelopes of
// every shape and each tool's arguments, generated from `tools/list`'s input schemas (mcpCases.ts),
// FUZZ_RUNS cases per tool and four times that for the envelope (test/fuzz/settings.ts). Every
// answer must be the JSON-RPC table's, exactly; no message names the system's insides or is a
// validator's raw output; another tenant's state is unchanged. GET and OPTIONS /mcp get the REST
// fuzzer's hostile headers and paths.
import { join } from 'node:path';
import fc from 'fast-check';
import type { ValidateFunction } from 'ajv';
import { sharedSystem } from '@ars/testenv';
import { envelopeCases, foreignToolCases, MCP_HEADERS, toolCases, toolValidators, type ListedTool, type RpcCase } from './mcpCases.js';
import { ApiModel, servedDocument, type Operation } from './openApi.js';
import { restCases, type Known, type RestCase } from './restCases.js';
import { Sender, describeOutcome, type Outcome } from './send.js';
import { CaseFailure, FUZZ_RUNS, FUZZ_SEED, FUZZ_TIMEOUT_MS, MAX_SHRINKS, checkAll, fuzzParameters } from './settings.js';
import { Effects, foreignValue, ownValue, seedTenant, snapshot, type Tenant } from './tenants.js';
import { echoForms, leakDetector, messagesOf, rawDumpIn, restFailureProblem, rpcProblem, transportProblem, type LeakDetector } from './verdicts.js';

const system = sharedSystem();
const servicesDir = join(new URL('../..', import.meta.url).pathname, 'services');
/** The envelope has more parts than a tool's arguments: four times the cases. */
const ENVELOPE_SCALE = 4;

let model: ApiModel;
let mcpPath: string;
let transportOperations: Operation[];
let tools: ListedTool[];
let validators: Map<string, ValidateFunction>;
let fuzzer: Tenant;
let bystander: Tenant;
let before: Record<string, unknown>;
let sender: Sender;
let leaks: LeakDetector;
let known: Known;
const effects = new Effects();

beforeAll(async () => {
  model = new ApiModel(await servedDocument(system().baseUrl));
  mcpPath = `${model.prefix}/mcp`;
  transportOperations = model.operations.filter((operation) => operation.tags.includes('MCP transport') && operation.method !== 'POST');
  [fuzzer, bystander] = await Promise.all([seedTenant(system(), false), seedTenant(system(), true)]);
  before = await snapshot(system(), bystander);
  sender = new Sender(system().baseUrl, fuzzer.pool);
  leaks = leakDetector(servicesDir, system());
  known = (template, name) => ownValue(fuzzer, template, name);
  const listed = await sender.send({
    method: 'POST',
    path: mcpPath,
    headers: MCP_HEADERS,
    body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    authorization: 'pool',
  });
  if (listed.kind !== 'answer' || listed.answer.status !== 200) throw new Error(`tools/list: ${describeOutcome(listed)}`);
  tools = (JSON.parse(listed.answer.text) as { result: { tools: ListedTool[] } }).result.tools;
  validators = toolValidators(tools);
}, 180_000);

afterAll(async () => {
  if (fuzzer) await effects.cleanUp(fuzzer);
}, 60_000);

async function answerTo(request: RpcCase['request']): Promise<Outcome> {
  const outcome = await sender.send(request);
  if (outcome.kind === 'answer') effects.note(outcome.answer);
  return outcome;
}

/** The envelope's property and each tool's, all through one check of the answer; every one that breaks it, with its counterexample. */
async function fuzzRpc(check: (testCase: RpcCase, outcome: Outcome) => string | undefined): Promise<string[]> {
  const properties: { name: string; cases: fc.Arbitrary<RpcCase>; scale: number }[] = [
    { name: 'envelope', cases: envelopeCases(mcpPath, validators), scale: ENVELOPE_SCALE },
    ...tools.map((tool) => ({ name: tool.name, cases: toolCases(mcpPath, tool, known, validators), scale: 1 })),
  ];
  return checkAll(
    properties,
    (property) => property.name,
    (property) =>
      fc.check(
        fc.asyncProperty(fc.limitShrink(property.cases, MAX_SHRINKS), async (testCase) => {
          const outcome = await answerTo(testCase.request);
          const problem = check(testCase, outcome);
          if (problem) throw new CaseFailure(`${problem}\n    answer: ${describeOutcome(outcome)}`);
        }),
        { ...fuzzParameters(property.name), numRuns: FUZZ_RUNS * property.scale },
      ),
  );
}

/** GET and OPTIONS /mcp under the REST fuzzer's hostile parts: their documented status, or a 4xx in the REST envelope. */
function fuzzTransportOperations(check: (testCase: RestCase, outcome: Outcome) => string | undefined): Promise<string[]> {
  return checkAll(
    transportOperations,
    (operation) => operation.id,
    (operation) =>
      fc.check(
        fc.asyncProperty(fc.limitShrink(restCases(model, operation, known), MAX_SHRINKS), async (testCase) => {
          const outcome = await sender.send(testCase.request);
          const problem = check(testCase, outcome);
          if (problem) throw new CaseFailure(`${problem}\n    answer: ${describeOutcome(outcome)}`);
        }),
        fuzzParameters(operation.id),
      ),
  );
}

function leakOf(sent: readonly string[], outcome: Outcome): string | undefined {
  if (outcome.kind !== 'answer') return undefined;
  for (const message of messagesOf(outcome.answer)) {
    const leak = leaks.leakIn(message, echoForms(...sent)) ?? rawDumpIn(message);
    if (leak) return leak;
  }
  return undefined;
}

test('tools/list names the contract’s 23 tools, each with an input schema to fuzz', () => {
  expect(tools).toHaveLength(23);
  expect(tools.every((tool) => typeof tool.inputSchema === 'object')).toBe(true);
  console.log(`fuzzing the envelope × ${FUZZ_RUNS * ENVELOPE_SCALE} and ${tools.length} tools × ${FUZZ_RUNS} cases, seed ${FUZZ_SEED}`);
});

describe('the JSON-RPC table, exactly: -32700 (400) only for a body that is not JSON, -32600 (400) for JSON that is not a request, -32601 (200) for an unknown method or tool, -32602 (200) for tool arguments missing or invalid, isError for a failing operation; never -32603, a 5xx or a hang', () => {
  test(
    'JSON-RPC envelopes of every shape, and each tool’s arguments made hostile in turn',
    async () => {
      const failures = await fuzzRpc((testCase, outcome) => rpcProblem(testCase.expected, outcome));
      expect(failures).toEqual([]);
    },
    FUZZ_TIMEOUT_MS,
  );

  test('GET /mcp is its 405 and OPTIONS its 204, or a 4xx in the envelope, whatever the headers and path', async () => {
    const failures = await fuzzTransportOperations((testCase, outcome) => {
      const transport = transportProblem(outcome);
      if (transport || outcome.kind !== 'answer') return transport;
      return testCase.operation.statuses.includes(outcome.answer.status) ? undefined : restFailureProblem(outcome.answer);
    });
    expect(failures).toEqual([]);
  }, 120_000);
});

describe('no message names an internal service, host or port, a source file or a stack frame, nor is a validator’s raw output', () => {
  test(
    'the messages of the same cases’ answers: JSON-RPC errors and failed tool results',
    async () => {
      const failures = [
        ...(await fuzzRpc((testCase, outcome) => leakOf(testCase.sent, outcome))),
        ...(await fuzzTransportOperations((testCase, outcome) => leakOf(testCase.sent, outcome))),
      ];
      expect(failures).toEqual([]);
    },
    FUZZ_TIMEOUT_MS,
  );
});

describe('another tenant’s state is unchanged afterwards, and never reachable through a tool by naming its ids', () => {
  test('a tool that writes refuses another tenant’s repository, automation, run or sandbox; one that reads shows nothing of it', async () => {
    const theirs = [bystander.repoId, bystander.automationId, bystander.automationRunId, bystander.runId, bystander.sandboxId];
    const writes = new Set(
      tools.filter((tool) => !(tool as ListedTool & { annotations?: { readOnlyHint?: boolean } }).annotations?.readOnlyHint).map((tool) => tool.name),
    );
    const cases = tools.flatMap((tool) => foreignToolCases(mcpPath, tool, known, (template, name) => foreignValue(bystander, template, name), validators));
    expect(cases.length).toBeGreaterThan(10);
    const failures: string[] = [];
    for (const testCase of cases) {
      const outcome = await answerTo(testCase.request);
      const text = outcome.kind === 'answer' ? outcome.answer.text : '';
      const result = (() => {
        try {
          return (JSON.parse(text) as { result?: { isError?: boolean } }).result;
        } catch {
          return undefined;
        }
      })();
      const succeeded = result !== undefined && result.isError === false;
      const shown = succeeded ? theirs.filter((id) => text.includes(id)) : [];
      const wrong = writes.has(testCase.name) ? succeeded : shown.length > 0;
      const problem = rpcProblem(testCase.expected, outcome);
      if (wrong || problem) failures.push(`${fc.stringify(testCase)}\n    ${problem ?? 'succeeded'}: ${describeOutcome(outcome)}`);
    }
    expect(failures).toEqual([]);
  }, 120_000);

  test('what the other tenant sees through the public API, and its PATs, are as before the fuzzing', async () => {
    expect(await snapshot(system(), bystander)).toEqual(before);
  }, 60_000);
});
