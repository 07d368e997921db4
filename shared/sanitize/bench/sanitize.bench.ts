// `npm run --silent bench -w @ars/sanitize` (after `npm run build`): ms per MB of redactSecrets over
// whole strings (no cap: the patterns' own cost) on adversarial inputs beside plain text, the cost
// of sanitizeText on a 250 KB string (what an event's output costs: cut first, so a constant), and
// the assignment pattern runs used before (for comparison; super-linear, so on smaller inputs).
// BENCH_SCALE (default 1) multiplies every input's size: 0.01 is the smoke form (test/benchmarks),
// the same code in well under a second.
import { redactSecrets, sanitizeText } from '@ars/sanitize';

const MB = 1024 * 1024;
const SCALE = Number(process.env.BENCH_SCALE ?? 1);
/** `bytes` at BENCH_SCALE, at least one character. */
const scaled = (bytes: number): number => Math.max(1, Math.round(bytes * SCALE));
/** 1 MB, 4 MB, 250 KB at the default scale; a smaller scale's sizes as they are (10.5 KB). */
const sizeLabel = (bytes: number): string => (bytes >= MB ? `${Number((bytes / MB).toFixed(2))} MB` : `${Number((bytes / 1000).toFixed(1))} KB`);

function fill(unit: string, size: number): string {
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
}

const INPUTS: Record<string, (size: number) => string> = {
  'plain text': (size) => fill('The quick brown fox jumps over the lazy dog; npm test passed in 3.2 s.\n', size),
  '`yes TOKEN | tr -d "\\n"`': (size) => fill('TOKEN', size),
  'long base64': (size) => fill('QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0NTY3ODkrLw', size),
  'many `A=`': (size) => fill('A=', size),
  'many `://`': (size) => fill('x://', size),
  'near-miss token prefixes': (size) => fill(`ghp_${'a'.repeat(19)} sk-${'b'.repeat(15)} eyJ${'c'.repeat(9)}.`, size),
  'a token prefix run': (size) => fill('ghp_', size),
  'many `PASSWORD: "`': (size) => fill('PASSWORD: "', size),
  'many `--a `': (size) => fill('--a ', size),
  'many `--password x `': (size) => fill('--password x ', size),
};

/** The fastest of `times` runs, in ms: noise only ever adds. */
function fastest(times: number, work: () => void): number {
  let best = Infinity;
  for (let i = 0; i < times; i += 1) {
    const t0 = performance.now();
    work();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

console.log(`@ars/sanitize, Node ${process.version}`);
const small = scaled(MB);
const large = scaled(4 * MB);
console.log(`redactSecrets over the whole string (ms per MB, at ${sizeLabel(small)} and at ${sizeLabel(large)}: linear when equal):`);
for (const [name, make] of Object.entries(INPUTS)) {
  const one = make(small);
  const four = make(large);
  const perMb1 = fastest(3, () => redactSecrets(one)) / (small / MB);
  const perMb4 = fastest(3, () => redactSecrets(four)) / (large / MB);
  console.log(
    `  ${name.padEnd(28)} ${perMb1.toFixed(1).padStart(7)} ms/MB at ${sizeLabel(small)}, ${perMb4.toFixed(1).padStart(7)} ms/MB at ${sizeLabel(large)}`,
  );
}

const eventSize = scaled(250_000);
console.log(`sanitizeText (cap 2,000) of a ${sizeLabel(eventSize)} string, as one event string (ms):`);
for (const [name, make] of Object.entries(INPUTS)) {
  const text = make(eventSize);
  console.log(
    `  ${name.padEnd(28)} ${fastest(5, () => sanitizeText(text))
      .toFixed(2)
      .padStart(7)} ms`,
  );
}

// The pattern of services/runs' former sanitizeEvent.ts, applied before truncation.
const FORMER_ASSIGNMENT =
  /\b([A-Za-z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?|AUTH)[A-Za-z0-9_]*)(\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s"']+)/gi;
console.log('the former assignment pattern on `yes TOKEN` text (ms; x4 the size costs ~x16):');
for (const size of [10_000, 20_000, 40_000].map(scaled)) {
  const text = fill('TOKEN', size);
  console.log(
    `  ${sizeLabel(size).padStart(6)}: ${fastest(1, () => text.replace(FORMER_ASSIGNMENT, ''))
      .toFixed(0)
      .padStart(6)} ms; now ${fastest(3, () => redactSecrets(text)).toFixed(2)} ms`,
  );
}
