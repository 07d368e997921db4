// What the check run of an attempt says: its conclusion, its summary and its annotations
// (RESEARCH.md §2: summary ≤ 65,535 characters, 50 annotations a request).
import type { FindingSeverity } from '@ars/contract';
import type { Classification, StoredFinding } from './classifyFindings.js';

export type CheckConclusion = 'success' | 'neutral' | 'failure';
export type AnnotationLevel = 'failure' | 'warning' | 'notice';

/** critical/high → failure, medium → warning, low/info → notice. */
export const ANNOTATION_LEVELS: Readonly<Record<FindingSeverity, AnnotationLevel>> = {
  critical: 'failure',
  high: 'failure',
  medium: 'warning',
  low: 'notice',
  info: 'notice',
};

/** The source host takes at most this many annotations in one check run update. */
export const ANNOTATIONS_PER_REQUEST = 50;
/** The longest check run summary the source host takes. */
export const MAX_SUMMARY_LENGTH = 65_535;

export interface Annotation {
  fingerprint: string;
  path: string;
  startLine: number;
  endLine: number;
  level: AnnotationLevel;
  title: string;
  message: string;
}

/**
 * `failure` when a new or persisting finding is critical or high, `neutral` when the open ones are
 * all medium, low or info, `success` when none is open (fixed and dismissed ones do not count).
 */
export function checkConclusion(classification: Pick<Classification, 'new' | 'persisting'>): CheckConclusion {
  const open = [...classification.new, ...classification.persisting];
  if (open.length === 0) return 'success';
  return open.some((f) => ANNOTATION_LEVELS[f.severity] === 'failure') ? 'failure' : 'neutral';
}

/** One annotation per open finding (new, then persisting, as given), in batches of ANNOTATIONS_PER_REQUEST. */
export function annotationBatches(classification: Pick<Classification, 'new' | 'persisting'>): Annotation[][] {
  const annotations = [...classification.new, ...classification.persisting].map((f): Annotation => ({
    fingerprint: f.fingerprint,
    path: f.path,
    startLine: f.line,
    endLine: f.endLine,
    level: ANNOTATION_LEVELS[f.severity],
    title: f.title ? `${f.severity}: ${f.title}` : f.severity,
    message: f.message,
  }));
  const batches: Annotation[][] = [];
  for (let at = 0; at < annotations.length; at += ANNOTATIONS_PER_REQUEST) batches.push(annotations.slice(at, at + ANNOTATIONS_PER_REQUEST));
  return batches;
}

/** `3 new, 1 persisting, 2 fixed` (also the check run's title). */
export function countsLine(classification: Pick<Classification, 'new' | 'persisting' | 'fixed'>): string {
  return `${classification.new.length} new, ${classification.persisting.length} persisting, ${classification.fixed.length} fixed`;
}

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();
const location = (f: StoredFinding): string => `\`${f.path.replace(/`/g, "'")}:${f.line}${f.endLine > f.line ? `-${f.endLine}` : ''}\``;

/**
 * The check run's summary (markdown, at most MAX_SUMMARY_LENGTH characters): the counts; then, in
 * full, the findings whose line the source host refused as a review comment (`refused`: their
 * fingerprints; a 422, the line is outside the diff), since they are said nowhere else; then one
 * line per open finding and per fixed one. What does not fit is counted in a last line, never cut
 * mid-finding.
 */
export function checkRunSummary(input: { classification: Classification; refused?: readonly string[]; headSha: string }): string {
  const { classification } = input;
  const refused = new Set(input.refused ?? []);
  const head = [`**${countsLine(classification)}** at \`${input.headSha}\`.`, '', '| state | findings |', '|---|---|'];
  head.push(`| new | ${classification.new.length} |`, `| persisting | ${classification.persisting.length} |`, `| fixed | ${classification.fixed.length} |`);
  if (classification.dismissed.length > 0) head.push(`| dismissed | ${classification.dismissed.length} |`);

  const sections: { heading: string; items: string[] }[] = [];
  const open = [...classification.new, ...classification.persisting];
  const offDiff = open.filter((f) => refused.has(f.fingerprint));
  if (offDiff.length > 0) {
    sections.push({
      heading: '### Not on the diff\nThese findings are on lines the pull request does not change, so they are not review comments:',
      items: offDiff.map((f) => `- **${f.severity}** ${location(f)}${f.title ? ` ${oneLine(f.title)}:` : ''} ${oneLine(f.message)}`),
    });
  }
  if (open.length > 0) {
    sections.push({
      heading: '### Open',
      items: open.map((f) => `- ${f.state} **${f.severity}** ${location(f)} ${oneLine(f.title ?? f.message).slice(0, 200)}`),
    });
  }
  if (classification.fixed.length > 0) {
    sections.push({
      heading: '### Fixed',
      items: classification.fixed.map((f) => `- **${f.severity}** ${location(f)} ${oneLine(f.title ?? f.message).slice(0, 200)}`),
    });
  }

  const total = sections.reduce((n, s) => n + s.items.length, 0);
  const overflow = (left: number): string => `\n_… and ${left} more finding line(s) not listed: the summary is limited to ${MAX_SUMMARY_LENGTH} characters._`;
  const reserve = overflow(total).length;
  let text = head.join('\n');
  let listed = 0;
  fill: for (const section of sections) {
    const heading = `\n\n${section.heading}`;
    if (text.length + heading.length + reserve > MAX_SUMMARY_LENGTH) break;
    text += heading;
    for (const item of section.items) {
      const line = `\n${item}`;
      if (text.length + line.length + reserve > MAX_SUMMARY_LENGTH) break fill;
      text += line;
      listed += 1;
    }
  }
  return listed < total ? text + overflow(total - listed) : text;
}
