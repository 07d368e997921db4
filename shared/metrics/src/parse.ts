/** One sample of the Prometheus text format: `name{labels} value`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A scrape parsed: its samples, and each metric family's `# TYPE`. */
export interface Scrape {
  samples: Sample[];
  types: Map<string, string>;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/;
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(,|$)/y;

function unescape(value: string): string {
  return value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
}

/** A sample value as Go's ParseFloat reads it (Prometheus' parser): `NaN`, `+Inf`, `-Inf` in any case (prom-client writes `Nan`). */
function parseValue(text: string): number {
  const lower = text.toLowerCase();
  if (lower === 'nan') return Number.NaN;
  if (lower === '+inf' || lower === 'inf') return Number.POSITIVE_INFINITY;
  if (lower === '-inf') return Number.NEGATIVE_INFINITY;
  const value = Number(text);
  if (text === '' || Number.isNaN(value)) throw new Error(`not a sample value: ${text}`);
  return value;
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const start = LABEL.lastIndex;
    const match = LABEL.exec(text);
    if (!match || match.index !== start) throw new Error(`malformed labels: ${line}`);
    labels[match[1]!] = unescape(match[2]!);
    if (match[3] === '') break;
  }
  return labels;
}

/**
 * Parses the Prometheus text exposition format (0.0.4), as `/metrics` answers it: what the tests
 * and the dashboard check read. Throws on a line that is not a comment, a sample or blank.
 */
export function parseMetricsText(text: string): Scrape {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    if (line.startsWith('#')) {
      const type = /^#\s*TYPE\s+(\S+)\s+(\S+)$/.exec(line);
      if (type) types.set(type[1]!, type[2]!);
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    samples.push({ name: match[1]!, labels: match[2] ? parseLabels(match[2], line) : {}, value: parseValue(match[3]!) });
  }
  return { samples, types };
}

/**
 * The sum of the samples named `name` whose labels include `labels` (0 when none): a counter
 * across the series the test does not pin down.
 */
export function sumOf(scrape: Scrape, name: string, labels: Record<string, string> = {}): number {
  return scrape.samples
    .filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
    .reduce((total, sample) => total + sample.value, 0);
}

/** The metric family names of a scrape (`# TYPE` lines): what a dashboard's queries may name. */
export function familyNames(scrape: Scrape): Set<string> {
  return new Set(scrape.types.keys());
}
