// Fingerprints that survive lines moving: a finding is known again by what it says about which code,
// never by its line number (RESEARCH.md §2; GitHub code scanning's partialFingerprints do the same).
import { createHash } from 'node:crypto';
import type { Finding } from './findingsFormat.js';

/** Hex characters of a fingerprint (of the sha256). */
export const FINGERPRINT_LENGTH = 24;

export interface FingerprintedFinding extends Finding {
  fingerprint: string;
}

/** Lower case, every run of characters other than letters and digits one space, trimmed. */
function normalizeWords(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** A line of code with its whitespace collapsed (indentation and spacing changes keep the fingerprint). */
export function normalizeCodeLine(line: string): string {
  return line.replace(/\s+/g, ' ').trim();
}

/**
 * What kind of finding it is: `rule:<ruleId>` when the agent named a rule, else `title:<words>`,
 * else `message:<words>` (words: lower case, punctuation and spacing dropped).
 */
export function findingCategory(finding: Pick<Finding, 'ruleId' | 'title' | 'message'>): string {
  if (finding.ruleId) return `rule:${finding.ruleId.trim().toLowerCase()}`;
  if (finding.title) return `title:${normalizeWords(finding.title)}`;
  return `message:${normalizeWords(finding.message)}`;
}

/** The anchored code the fingerprint reads, and which occurrence of that code it is. */
export interface AnchoredCode {
  source: 'lines' | 'anchor' | 'none';
  content: string;
  occurrence: number;
}

/**
 * The anchored code of a finding:
 * - `lines`: lines `line`..`endLine` of the file (cut at its end), each normalized, joined by `\n`;
 *   `occurrence` counts the earlier places of the file where the same number of lines read the
 *   same (0 for the first), so two identical pieces of code are two findings;
 * - `anchor`: when the file or the line is not known (`fileLines` null, `line` past the end), the
 *   agent's `anchor` text, normalized;
 * - `none`: neither; the category and path alone.
 */
export function anchoredCode(finding: Pick<Finding, 'line' | 'endLine' | 'anchor'>, fileLines: readonly string[] | null): AnchoredCode {
  if (fileLines !== null && finding.line <= fileLines.length) {
    const normalized = fileLines.map(normalizeCodeLine);
    const start = finding.line - 1;
    const size = Math.min(finding.endLine, fileLines.length) - start;
    const window = (at: number): string => normalized.slice(at, at + size).join('\n');
    const content = window(start);
    let occurrence = 0;
    for (let at = 0; at < start; at += 1) if (window(at) === content) occurrence += 1;
    return { source: 'lines', content, occurrence };
  }
  if (finding.anchor !== undefined) {
    return { source: 'anchor', content: finding.anchor.split(/\r?\n/).map(normalizeCodeLine).join('\n'), occurrence: 0 };
  }
  return { source: 'none', content: '', occurrence: 0 };
}

/**
 * sha256 over (category, path, anchored code, occurrence), FINGERPRINT_LENGTH hex characters. The
 * line number is never part of it: code moved by an insertion above keeps its fingerprint; editing
 * an anchored line changes it. `fileLines`: the file at the reviewed commit, null when unknown.
 */
export function fingerprintFinding(finding: Finding, fileLines: readonly string[] | null): string {
  const code = anchoredCode(finding, fileLines);
  const identity = JSON.stringify(['ars-finding/1', findingCategory(finding), finding.path, code.source, code.content, code.occurrence]);
  return createHash('sha256').update(identity).digest('hex').slice(0, FINGERPRINT_LENGTH);
}

/** Every finding with its fingerprint; `linesOf(path)` gives a file's lines (null when unknown). */
export function fingerprintFindings(findings: readonly Finding[], linesOf: (path: string) => readonly string[] | null): FingerprintedFinding[] {
  return findings.map((finding) => ({ ...finding, fingerprint: fingerprintFinding(finding, linesOf(finding.path)) }));
}
