// How much the fuzzer tries, and how it reports: fixed in CI (a seed and a small number of cases
// per operation), longer by hand (`FUZZ_RUNS=200 FUZZ_SEED=7 npm run --silent test:jest -- test/fuzz`).
// A failure prints fast-check's counterexample with its seed and path, and the line that replays it.
import fc from 'fast-check';

function integerFrom(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min) throw new Error(`${name} must be an integer of at least ${min}, not ${JSON.stringify(raw)}`);
  return value;
}

/** Cases per operation (and per tool, and for the JSON-RPC envelope): small in CI, where the whole fuzz folder must stay well under a minute. */
export const FUZZ_RUNS = integerFrom('FUZZ_RUNS', 10, 1);
/** One seed for every property: the same cases on every CI run, another set by hand. */
export const FUZZ_SEED = integerFrom('FUZZ_SEED', 20_261_129, 0);
/** Replays one counterexample: its operation (or tool) and fast-check's path, as a failure prints them. */
export const FUZZ_ONLY = process.env.FUZZ_ONLY || undefined;
export const FUZZ_PATH = process.env.FUZZ_PATH || undefined;

/** A fuzzing test's own deadline: five minutes, or more for a long run by hand (it grows with FUZZ_RUNS). */
export const FUZZ_TIMEOUT_MS = Math.max(300_000, FUZZ_RUNS * 15_000);

/** Requests in flight at once: enough to keep the wall time down, few enough not to load a shared system that other suites use. */
export const CONCURRENCY = 4;
/** An answer later than this is a hang. The slowest legitimate answer here (a terminal run's event stream, a tool waiting on an ended run) takes well under a second. */
export const DEADLINE_MS = 10_000;
/** Shrinking resends: bounded, so a failure known to others does not hold CI for minutes. */
export const MAX_SHRINKS = 25;

/** fast-check's parameters for one property: the seed, the count, and the replay path when it is this one's. */
export function fuzzParameters(name: string): { seed: number; numRuns: number; includeErrorInReport: true; path?: string } {
  return { seed: FUZZ_SEED, numRuns: FUZZ_RUNS, includeErrorInReport: true, ...(FUZZ_PATH && FUZZ_ONLY === name ? { path: FUZZ_PATH } : {}) };
}

/** Whether a property named `name` runs (all, unless FUZZ_ONLY picks one). */
export function selected(name: string): boolean {
  return FUZZ_ONLY === undefined || FUZZ_ONLY === name;
}

/**
 * Runs each item's check with at most CONCURRENCY at once (each check sends its cases one after
 * another) and gathers every failure's report: a test lists all the operations that break a rule,
 * not only the first.
 */
export async function checkAll<T, Ts>(items: readonly T[], name: (item: T) => string, check: (item: T) => Promise<fc.RunDetails<Ts>>): Promise<string[]> {
  const failures: string[] = [];
  const queue = items.filter((item) => selected(name(item)));
  const worker = async (): Promise<void> => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) {
      const details = await check(item);
      if (details.failed) failures.push(failureReport(name(item), details));
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return failures.sort();
}

/** A case's failure: what is wrong and the answer, without this file's stack (the counterexample says where). */
export class CaseFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CaseFailure';
    this.stack = `${this.name}: ${message}`;
  }
}

/** fast-check's own report (counterexample, seed, path, the error) and the command that replays it. */
export function failureReport<Ts>(name: string, details: fc.RunDetails<Ts>): string {
  const report = fc.defaultReportMessage(details) ?? 'failed';
  const replay =
    details.counterexamplePath === null
      ? ''
      : `\nreplay: FUZZ_ONLY='${name}' FUZZ_SEED=${details.seed} FUZZ_PATH='${details.counterexamplePath}' FUZZ_RUNS=${FUZZ_RUNS}`;
  return `── ${name}\n${report}${replay}`;
}
