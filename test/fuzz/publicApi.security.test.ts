// Issue 32: a fuzzer over the whole public REST API, generated from the OpenAPI document the gateway
// serves (fetched, never imported). Each operation gets FUZZ_RUNS cases (test/fuzz/settings.ts): a
// valid request of the fuzzing tenant with one part hostile (restCases.ts, hostile.ts). Every answer
// must be what CONTRACT.md's Errors promise, name nothing of the system's insides, and leave another
// tenant's state as it was. A failure prints fast-check's counterexample, seed and path, and the
// command that replays it.
import { join } from 'node:path';
import fc from 'fast-check';
import { sharedSystem } from '@ars/testenv';
import { ApiModel, servedDocument, type Operation } from './openApi.js';
import { foreignCases, restCases, type Known, type RestCase } from './restCases.js';
import { Sender, describeOutcome, type Outcome } from './send.js';
import { CaseFailure, FUZZ_RUNS, FUZZ_SEED, FUZZ_TIMEOUT_MS, MAX_SHRINKS, checkAll, fuzzParameters } from './settings.js';
import { Effects, foreignValue, ownValue, seedTenant, snapshot, type Tenant } from './tenants.js';
import { echoForms, leakDetector, messagesOf, restAnswerProblem, type LeakDetector } from './verdicts.js';

const system = sharedSystem();
const servicesDir = join(new URL('../..', import.meta.url).pathname, 'services');

let model: ApiModel;
let operations: Operation[];
let fuzzer: Tenant;
let bystander: Tenant;
let before: Record<string, unknown>;
let sender: Sender;
let leaks: LeakDetector;
let known: Known;
const effects = new Effects();

beforeAll(async () => {
  model = new ApiModel(await servedDocument(system().baseUrl));
  // The MCP transport answers in JSON-RPC, not the REST envelope: mcp.security.test.ts fuzzes it.
  operations = model.operations.filter((operation) => !operation.tags.includes('MCP transport'));
  [fuzzer, bystander] = await Promise.all([seedTenant(system(), false), seedTenant(system(), true)]);
  before = await snapshot(system(), bystander);
  sender = new Sender(system().baseUrl, fuzzer.pool);
  leaks = leakDetector(servicesDir, system());
  known = (template, name) => ownValue(fuzzer, template, name);
}, 180_000);

afterAll(async () => {
  if (fuzzer) await effects.cleanUp(fuzzer);
}, 60_000);

/** Sends a case (or reads the answer a property before got for it) and notes the work a success started. */
async function answerTo(testCase: RestCase): Promise<Outcome> {
  const outcome = await sender.send(testCase.request);
  if (outcome.kind === 'answer') effects.note(outcome.answer);
  return outcome;
}

/** Each operation's cases through one check of the answer; every operation that breaks it, reported with its counterexample. */
function fuzzEach(check: (testCase: RestCase, outcome: Outcome) => string | undefined): Promise<string[]> {
  return checkAll(
    operations,
    (operation) => operation.id,
    (operation) =>
      fc.check(
        fc.asyncProperty(fc.limitShrink(restCases(model, operation, known), MAX_SHRINKS), async (testCase) => {
          const outcome = await answerTo(testCase);
          const problem = check(testCase, outcome);
          if (problem) throw new CaseFailure(`${problem}\n    answer: ${describeOutcome(outcome)}`);
        }),
        fuzzParameters(operation.id),
      ),
  );
}

test('the served document describes the contract’s operations, each fuzzed with FUZZ_RUNS cases', () => {
  expect(model.document.openapi).toMatch(/^3\./);
  expect(operations.map((operation) => `${operation.method} ${operation.template}`)).toEqual(
    expect.arrayContaining(['GET /repos', 'POST /runs', 'POST /automations/{automationId}/trigger', 'POST /sandboxes', 'GET /mcp/servers']),
  );
  console.log(`fuzzing ${operations.length} operations × ${FUZZ_RUNS} cases, seed ${FUZZ_SEED}`);
});

describe('every answer is a success or a 4xx in the envelope with the code of its status (429 with Retry-After); never a 5xx, never a hang', () => {
  test(
    'each operation, each parameter, header and body field made hostile in turn',
    async () => {
      const failures = await fuzzEach((testCase, outcome) => restAnswerProblem(outcome, testCase.operation));
      expect(failures).toEqual([]);
    },
    FUZZ_TIMEOUT_MS,
  );
});

describe('no message names an internal service, host or port, a source file or a stack frame', () => {
  test(
    'the messages of the same cases’ answers',
    async () => {
      const failures = await fuzzEach((testCase, outcome) => {
        if (outcome.kind !== 'answer') return undefined;
        const sent = echoForms(...testCase.sent);
        for (const message of messagesOf(outcome.answer)) {
          const leak = leaks.leakIn(message, sent);
          if (leak) return leak;
        }
        return undefined;
      });
      expect(failures).toEqual([]);
    },
    FUZZ_TIMEOUT_MS,
  );
});

describe('another tenant’s state is unchanged afterwards, and never reachable by naming its ids', () => {
  test('a write naming another tenant’s repository, automation, run or sandbox is refused; a read naming one shows nothing of it', async () => {
    const theirs = [bystander.repoId, bystander.automationId, bystander.automationRunId, bystander.runId, bystander.sandboxId];
    const cases = operations.flatMap((operation) => foreignCases(model, operation, known, (template, name) => foreignValue(bystander, template, name)));
    expect(cases.length).toBeGreaterThan(10);
    const failures: string[] = [];
    for (const testCase of cases) {
      const outcome = await answerTo(testCase);
      const answer = outcome.kind === 'answer' ? outcome.answer : undefined;
      const success = answer !== undefined && answer.status >= 200 && answer.status < 300;
      const shown = success ? theirs.filter((id) => answer.text.includes(id)) : [];
      // A read may answer "nothing" (an empty list, `{run: null}`) as long as it shows nothing of theirs; a write must refuse.
      const wrong = testCase.operation.method === 'GET' ? shown.length > 0 : success;
      if (wrong || restAnswerProblem(outcome, testCase.operation))
        failures.push(`${fc.stringify(testCase)}\n    answer: ${describeOutcome(outcome)}${shown.length > 0 ? `\n    shows ${shown.join(', ')}` : ''}`);
    }
    expect(failures).toEqual([]);
  }, 120_000);

  test('what the other tenant sees through the public API, and its PATs, are as before the fuzzing', async () => {
    expect(await snapshot(system(), bystander)).toEqual(before);
  }, 60_000);
});
