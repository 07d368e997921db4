// Per attempt, each finding's state: new, persisting (reported again), fixed (no longer reported)
// or dismissed (a person said it is not a problem; it stays so).
import { FINDING_STATES, type FindingState } from '@ars/contract';
import type { FingerprintedFinding } from './fingerprint.js';

export { FINDING_STATES, type FindingState };

/** A finding as an attempt keeps it: what it says, its fingerprint, its state after that attempt. */
export interface StoredFinding extends FingerprintedFinding {
  state: FindingState;
}

export interface Classification {
  /** What this attempt stores: every finding of the pull request with its state now (the next attempt's `previous`). */
  findings: StoredFinding[];
  /** Reported now, not open before (never reported, or fixed earlier and back). */
  new: StoredFinding[];
  /** Reported now and open before. */
  persisting: StoredFinding[];
  /** Open before, not reported now: fixed by this attempt's commit. */
  fixed: StoredFinding[];
  /** Dismissed before; reported now or not, they stay dismissed. */
  dismissed: StoredFinding[];
}

const isOpen = (state: FindingState): boolean => state === 'new' || state === 'persisting';

/** Path, then line, then end line, then fingerprint: the same findings always come in the same order. */
export function compareFindings(a: FingerprintedFinding, b: FingerprintedFinding): number {
  if (a.path !== b.path) return a.path < b.path ? -1 : 1;
  if (a.line !== b.line) return a.line - b.line;
  if (a.endLine !== b.endLine) return a.endLine - b.endLine;
  return a.fingerprint < b.fingerprint ? -1 : a.fingerprint > b.fingerprint ? 1 : 0;
}

/** When `previous` holds one fingerprint twice, dismissed wins over open, open over fixed. */
const PRECEDENCE: Record<FindingState, number> = { dismissed: 3, persisting: 2, new: 2, fixed: 1 };

/**
 * The states after an attempt, from the findings stored by the previous one and those reported now:
 * - reported now, open before (same fingerprint) → `persisting`, with what it says now;
 * - reported now, dismissed before → stays `dismissed` (with what it says now);
 * - reported now, otherwise (unknown, or fixed before and back) → `new`;
 * - open before, not reported now → `fixed` (what it said last);
 * - dismissed or fixed before and not reported now → kept as they were (in `findings` only).
 * A fingerprint reported twice now counts once (the first). Every list is in compareFindings order.
 */
export function classifyFindings(previous: readonly StoredFinding[], current: readonly FingerprintedFinding[]): Classification {
  const before = new Map<string, StoredFinding>();
  for (const finding of previous) {
    const known = before.get(finding.fingerprint);
    if (!known || PRECEDENCE[finding.state] > PRECEDENCE[known.state]) before.set(finding.fingerprint, finding);
  }
  const now = new Map<string, FingerprintedFinding>();
  for (const finding of current) if (!now.has(finding.fingerprint)) now.set(finding.fingerprint, finding);

  const findings: StoredFinding[] = [];
  for (const finding of now.values()) {
    const state = before.get(finding.fingerprint)?.state;
    findings.push({ ...finding, state: state === 'dismissed' ? 'dismissed' : state !== undefined && isOpen(state) ? 'persisting' : 'new' });
  }
  for (const finding of before.values()) {
    if (now.has(finding.fingerprint)) continue;
    findings.push({ ...finding, state: isOpen(finding.state) ? 'fixed' : finding.state });
  }
  findings.sort(compareFindings);
  const fixedNow = new Set([...before.values()].filter((f) => isOpen(f.state) && !now.has(f.fingerprint)).map((f) => f.fingerprint));
  return {
    findings,
    new: findings.filter((f) => f.state === 'new'),
    persisting: findings.filter((f) => f.state === 'persisting'),
    fixed: findings.filter((f) => f.state === 'fixed' && fixedNow.has(f.fingerprint)),
    dismissed: findings.filter((f) => f.state === 'dismissed'),
  };
}
