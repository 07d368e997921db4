// Patterns linear by construction: each one the sanitizer uses is checked by recheck, a static
// ReDoS checker (automaton analysis where the pattern allows it, else fuzzing that counts the
// matching steps of its own backtracking VM), which rejects any pattern whose matching cost can
// grow faster than the input. The fuzzing is made deterministic: a fixed seed, no time budgets and
// no "recall" (recall re-runs a candidate attack on the real engine under a timeout — wall-clock
// time, which on a loaded machine turned a `safe` pattern `polynomial` from one run to the next).
import { checkSync, type Parameters } from 'recheck';
import { ALL_PATTERNS } from '@ars/sanitize';

const DETERMINISTIC: Partial<Parameters> = { randomSeed: 1, timeout: null, incubationTimeout: null, recallLimit: 0 };

/** The check's verdict, with the attack string when there is one (what the failure message shows). */
function verdict(regex: RegExp): { status: string; attack?: string } {
  const diagnostics = checkSync(regex.source, regex.flags, DETERMINISTIC);
  return diagnostics.status === 'vulnerable' ? { status: diagnostics.status, attack: diagnostics.attack.pattern } : { status: diagnostics.status };
}

describe('every pattern is linear: a static ReDoS check rejects super-linear ones', () => {
  test.each(ALL_PATTERNS.map((pattern) => [pattern.name, pattern.regex] as const))(
    '%s',
    (_name, regex) => {
      expect(verdict(regex)).toEqual({ status: 'safe' });
    },
    180_000,
  );

  test('the check does reject the pattern that stalled runs (a secret assignment read from every letter)', () => {
    const former =
      /\b([A-Za-z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?|AUTH)[A-Za-z0-9_]*)(\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s"']+)/gi;
    expect(verdict(former).status).toBe('vulnerable');
  }, 180_000);
});
