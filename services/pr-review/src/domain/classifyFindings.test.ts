import { classifyFindings, type StoredFinding } from './classifyFindings.js';
import type { FingerprintedFinding } from './fingerprint.js';

const f = (fingerprint: string, over: Partial<FingerprintedFinding> = {}): FingerprintedFinding => ({
  fingerprint,
  path: 'src/a.ts',
  line: 1,
  endLine: 1,
  severity: 'medium',
  message: `finding ${fingerprint}`,
  ...over,
});
const states = (findings: StoredFinding[]): Record<string, string> => Object.fromEntries(findings.map((x) => [x.fingerprint, x.state]));

describe('each current finding is new, or persisting when an open previous one has its fingerprint; open previous ones not found now are fixed', () => {
  test('the first attempt: everything is new', () => {
    const result = classifyFindings([], [f('aa'), f('bb')]);
    expect(states(result.findings)).toEqual({ aa: 'new', bb: 'new' });
    expect(result.new).toHaveLength(2);
    expect(result.persisting).toEqual([]);
    expect(result.fixed).toEqual([]);
  });

  test('across three attempts: new → persisting → fixed, and a finding fixed then back is new again', () => {
    const first = classifyFindings([], [f('aa', { line: 10 }), f('bb', { line: 20 })]);
    const second = classifyFindings(first.findings, [f('aa', { line: 12, message: 'reworded' }), f('cc', { line: 30 })]);
    expect(states(second.findings)).toEqual({ aa: 'persisting', bb: 'fixed', cc: 'new' });
    expect(second.persisting[0]).toMatchObject({ line: 12, message: 'reworded' });
    expect(second.fixed.map((x) => x.fingerprint)).toEqual(['bb']);
    const third = classifyFindings(second.findings, [f('bb', { line: 21 }), f('cc', { line: 30 })]);
    expect(states(third.findings)).toEqual({ aa: 'fixed', bb: 'new', cc: 'persisting' });
    expect(third.fixed.map((x) => x.fingerprint)).toEqual(['aa']);
  });

  test('a finding fixed in an earlier attempt is kept as fixed, but is not fixed again by this one', () => {
    const earlier: StoredFinding[] = [{ ...f('aa'), state: 'fixed' }];
    const result = classifyFindings(earlier, []);
    expect(states(result.findings)).toEqual({ aa: 'fixed' });
    expect(result.fixed).toEqual([]);
  });

  test('a fingerprint reported twice now counts once', () => {
    expect(classifyFindings([], [f('aa', { line: 3 }), f('aa', { line: 9 })]).findings).toEqual([{ ...f('aa', { line: 3 }), state: 'new' }]);
  });
});

describe('dismissed ones stay dismissed', () => {
  test('reported again or not, a dismissed finding is neither new, persisting nor fixed', () => {
    const previous: StoredFinding[] = [
      { ...f('aa'), state: 'dismissed' },
      { ...f('bb'), state: 'dismissed' },
    ];
    const result = classifyFindings(previous, [f('aa', { line: 5 })]);
    expect(states(result.findings)).toEqual({ aa: 'dismissed', bb: 'dismissed' });
    expect(result.dismissed.map((x) => [x.fingerprint, x.line])).toEqual([
      ['bb', 1],
      ['aa', 5],
    ]);
    expect([...result.new, ...result.persisting, ...result.fixed]).toEqual([]);
  });

  test('when the previous list holds a fingerprint twice, dismissed wins', () => {
    const previous: StoredFinding[] = [
      { ...f('aa'), state: 'persisting' },
      { ...f('aa'), state: 'dismissed' },
    ];
    expect(states(classifyFindings(previous, [f('aa')]).findings)).toEqual({ aa: 'dismissed' });
  });
});

describe('the order is deterministic: path, line, end line, fingerprint', () => {
  test('whatever order the findings come in', () => {
    const current = [
      f('dd', { path: 'b.ts', line: 1 }),
      f('cc', { path: 'a.ts', line: 9 }),
      f('bb', { path: 'a.ts', line: 2 }),
      f('aa', { path: 'a.ts', line: 2 }),
    ];
    const forward = classifyFindings([], current).findings.map((x) => x.fingerprint);
    const backward = classifyFindings([], [...current].reverse()).findings.map((x) => x.fingerprint);
    expect(forward).toEqual(['aa', 'bb', 'cc', 'dd']);
    expect(backward).toEqual(forward);
  });
});
