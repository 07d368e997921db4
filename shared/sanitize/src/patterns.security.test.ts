// Patterns linear by construction: each one the sanitizer uses is checked by recheck, a static
// ReDoS checker (automaton analysis where the pattern allows it, else guided fuzzing with a fixed
// seed), which rejects any pattern whose matching time can grow faster than the input.
import { checkSync } from 'recheck';
import { ALL_PATTERNS } from '@ars/sanitize';

describe('every pattern is linear: a static ReDoS check rejects super-linear ones', () => {
  test.each(ALL_PATTERNS.map((pattern) => [pattern.name, pattern.regex] as const))('%s', (_name, regex) => {
    const diagnostics = checkSync(regex.source, regex.flags, { randomSeed: 1, timeout: 20_000 });
    expect({ status: diagnostics.status, complexity: diagnostics.status === 'vulnerable' ? diagnostics.complexity : undefined }).toEqual({ status: 'safe', complexity: undefined });
  });

  test('the checker does reject the pattern that stalled runs (a secret assignment read from every letter)', () => {
    const old = /\b([A-Za-z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?|AUTH)[A-Za-z0-9_]*)(\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s"']+)/gi;
    expect(checkSync(old.source, old.flags, { randomSeed: 1, timeout: 20_000 }).status).toBe('vulnerable');
  });
});
