import { FINGERPRINT_LENGTH, anchoredCode, findingCategory, fingerprintFinding, fingerprintFindings } from './fingerprint.js';
import type { Finding } from './findingsFormat.js';

const file = ['import { db } from "./db";', '', 'export function load(id) {', '  return db.query(id);', '}'];
const finding = (over: Partial<Finding> = {}): Finding => ({
  path: 'src/load.ts',
  line: 4,
  endLine: 4,
  severity: 'high',
  message: 'The id reaches the query unchecked.',
  ruleId: 'sql-injection',
  ...over,
});

describe('a fingerprint is sha256 over category, path and the anchored code, never the line number', () => {
  test(`hex, ${FINGERPRINT_LENGTH} characters, the same for the same input`, () => {
    const fingerprint = fingerprintFinding(finding(), file);
    expect(fingerprint).toMatch(/^[0-9a-f]+$/);
    expect(fingerprint.length).toBeGreaterThanOrEqual(16);
    expect(fingerprint.length).toBeLessThanOrEqual(32);
    expect(fingerprintFinding(finding(), [...file])).toBe(fingerprint);
  });

  test('a commit that shifts lines keeps the fingerprint: the code moved down by an insertion above', () => {
    const shifted = ['// a header', '// added by a later commit', ...file];
    expect(fingerprintFinding(finding({ line: 6, endLine: 6 }), shifted)).toBe(fingerprintFinding(finding(), file));
  });

  test('re-indenting or re-spacing the anchored line keeps it', () => {
    const reindented = file.map((l, i) => (i === 3 ? '\treturn   db.query(id);  ' : l));
    expect(fingerprintFinding(finding(), reindented)).toBe(fingerprintFinding(finding(), file));
  });

  test('an edited anchored line changes it', () => {
    const edited = file.map((l, i) => (i === 3 ? '  return db.query(Number(id));' : l));
    expect(fingerprintFinding(finding(), edited)).not.toBe(fingerprintFinding(finding(), file));
  });

  test('every anchored line counts, up to endLine', () => {
    const span = finding({ line: 3, endLine: 5 });
    const editedLast = file.map((l, i) => (i === 4 ? '} // end' : l));
    expect(fingerprintFinding(span, editedLast)).not.toBe(fingerprintFinding(span, file));
    expect(anchoredCode(span, file).content).toBe('export function load(id) {\nreturn db.query(id);\n}');
  });

  test('another path, or another rule, is another fingerprint', () => {
    const base = fingerprintFinding(finding(), file);
    expect(fingerprintFinding(finding({ path: 'src/other.ts' }), file)).not.toBe(base);
    expect(fingerprintFinding(finding({ ruleId: 'n-plus-one' }), file)).not.toBe(base);
  });

  test('the message does not count when a rule is named; the severity never counts', () => {
    const base = fingerprintFinding(finding(), file);
    expect(fingerprintFinding(finding({ message: 'Said differently.', severity: 'low' }), file)).toBe(base);
  });
});

describe('the category is the ruleId, else the title, else the message, as words', () => {
  test('ruleId wins; title and message are compared by their words only', () => {
    expect(findingCategory({ ruleId: 'SQL-Injection', title: 'x', message: 'y' })).toBe('rule:sql-injection');
    expect(findingCategory({ title: 'Unchecked  input!', message: 'y' })).toBe('title:unchecked input');
    expect(findingCategory({ message: 'The id, unchecked.' })).toBe('message:the id unchecked');
    const noRule = finding({ ruleId: undefined, title: 'Unchecked input' });
    expect(fingerprintFinding({ ...noRule, title: 'unchecked input.' }, file)).toBe(fingerprintFinding(noRule, file));
  });
});

describe('two identical anchored lines at different places are told apart by their occurrence among identical anchors', () => {
  const twice = ['a();', 'risky();', 'b();', 'risky();', 'c();'];

  test('the first and second risky() have occurrences 0 and 1, and different fingerprints', () => {
    expect(anchoredCode(finding({ line: 2, endLine: 2 }), twice).occurrence).toBe(0);
    expect(anchoredCode(finding({ line: 4, endLine: 4 }), twice).occurrence).toBe(1);
    expect(fingerprintFinding(finding({ line: 2, endLine: 2 }), twice)).not.toBe(fingerprintFinding(finding({ line: 4, endLine: 4 }), twice));
  });

  test('both keep their fingerprints when other lines are inserted between and above them', () => {
    const shifted = ['x();', 'a();', 'risky();', 'y();', 'b();', 'risky();', 'c();'];
    expect(fingerprintFinding(finding({ line: 3, endLine: 3 }), shifted)).toBe(fingerprintFinding(finding({ line: 2, endLine: 2 }), twice));
    expect(fingerprintFinding(finding({ line: 6, endLine: 6 }), shifted)).toBe(fingerprintFinding(finding({ line: 4, endLine: 4 }), twice));
  });
});

describe('without the file (or past its end) the agent’s anchor text stands for the code', () => {
  test('anchor, normalized, when the file is unknown; the same anchor, the same fingerprint', () => {
    const withAnchor = finding({ anchor: '  return db.query(id);' });
    expect(anchoredCode(withAnchor, null)).toEqual({ source: 'anchor', content: 'return db.query(id);', occurrence: 0 });
    expect(fingerprintFinding({ ...withAnchor, line: 90, endLine: 90 }, file)).toBe(fingerprintFinding(withAnchor, null));
  });

  test('neither file nor anchor: category and path alone', () => {
    expect(anchoredCode(finding(), null)).toEqual({ source: 'none', content: '', occurrence: 0 });
  });

  test('fingerprintFindings reads each finding’s file through linesOf', () => {
    const files: Record<string, string[]> = { 'src/load.ts': file };
    const [one, two] = fingerprintFindings([finding(), finding({ path: 'gone.ts' })], (path) => files[path] ?? null);
    expect(one?.fingerprint).toBe(fingerprintFinding(finding(), file));
    expect(two?.fingerprint).toBe(fingerprintFinding(finding({ path: 'gone.ts' }), null));
  });
});
