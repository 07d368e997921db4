import { FINDINGS_FENCE, MAX_FINDINGS } from '@ars/contract';
import { FINDINGS_FORMAT_INSTRUCTIONS, normalizeFindingPath, parseFindings } from './findingsFormat.js';

const block = (json: string, fence = '```'): string => `${fence}${FINDINGS_FENCE}\n${json}\n${fence}`;
const one = { path: 'src/a.ts', line: 3, severity: 'high', message: 'A problem.' };

describe('the agent answers with one ```ars-findings block holding a JSON array; prose around it is ignored', () => {
  test('a block inside prose is read; endLine defaults to line', () => {
    const message = `I looked at the diff.\n\n${block(JSON.stringify([one, { ...one, line: 7, endLine: 9, severity: 'info', title: ' T ', ruleId: 'r1', anchor: 'x()' }]))}\n\nThat is all.`;
    expect(parseFindings(message)).toEqual({
      readable: true,
      findings: [
        { path: 'src/a.ts', line: 3, endLine: 3, severity: 'high', message: 'A problem.' },
        { path: 'src/a.ts', line: 7, endLine: 9, severity: 'info', message: 'A problem.', title: 'T', ruleId: 'r1', anchor: 'x()' },
      ],
      problems: [],
    });
  });

  test('an empty array is no finding and no problem; ~~~ fences and indented fences are read too', () => {
    expect(parseFindings(block('[]'))).toEqual({ readable: true, findings: [], problems: [] });
    expect(parseFindings(block(JSON.stringify([one]), '~~~~')).findings).toHaveLength(1);
    expect(parseFindings(`  \`\`\`${FINDINGS_FENCE}\n[]\n  \`\`\``)).toEqual({ readable: true, findings: [], problems: [] });
  });

  test('only the last block is read, and the earlier ones are listed as a problem', () => {
    const parsed = parseFindings(`Example:\n${block('[]')}\nAnswer:\n${block(JSON.stringify([one]))}`);
    expect(parsed.findings).toHaveLength(1);
    expect(parsed.problems).toEqual([`1 earlier ${FINDINGS_FENCE} block(s) ignored: only the last one is read`]);
  });

  test('a block of another language is not the findings block', () => {
    expect(parseFindings('```json\n[]\n```').problems).toEqual([`the message has no \`\`\`${FINDINGS_FENCE} block`]);
  });

  test('the instructions name the fence, the fields and the severities', () => {
    expect(FINDINGS_FORMAT_INSTRUCTIONS).toContain('```ars-findings');
    for (const word of ['path', 'line', 'endLine', 'severity', 'message', 'ruleId', 'anchor', 'critical, high, medium, low, info']) {
      expect(FINDINGS_FORMAT_INSTRUCTIONS).toContain(word);
    }
    // The example in the instructions is itself a valid block.
    expect(parseFindings(FINDINGS_FORMAT_INSTRUCTIONS)).toMatchObject({ problems: [], findings: [{ path: 'src/app.ts', line: 42, endLine: 44 }] });
  });
});

describe('a malformed block is a problem listed, never a crash, and the answer is unreadable (nothing may be concluded from it)', () => {
  test.each([
    ['no message at all', null, `the message has no \`\`\`${FINDINGS_FENCE} block`],
    ['no block', 'Looks good to me.', `the message has no \`\`\`${FINDINGS_FENCE} block`],
    ['not JSON', block('[{"path": '), /^the ars-findings block is not JSON: /],
    ['not an array', block('{"findings": []}'), 'the ars-findings block must hold a JSON array'],
  ])('%s', (_name, message, problem) => {
    const parsed = parseFindings(message);
    expect(parsed.readable).toBe(false);
    expect(parsed.findings).toEqual([]);
    expect(parsed.problems).toHaveLength(1);
    expect(parsed.problems[0]).toEqual(typeof problem === 'string' ? problem : expect.stringMatching(problem));
  });

  test('an unclosed block is read to the end of the message, and said so', () => {
    expect(parseFindings(`\`\`\`${FINDINGS_FENCE}\n${JSON.stringify([one])}`)).toEqual({
      readable: true,
      findings: [expect.objectContaining({ path: 'src/a.ts' })],
      problems: ['the ars-findings block is not closed: read to the end of the message'],
    });
  });

  test('each bad finding is refused alone, with what is wrong and where', () => {
    const items = [
      one,
      { ...one, severity: 'blocker' },
      { path: 'a.ts', line: 0, severity: 'low', message: 'm' },
      { line: 1, severity: 'low', message: 'm' },
      { ...one, extra: true },
      { ...one, path: '../../etc/passwd' },
      { ...one, line: 5, endLine: 4 },
      { ...one, message: '   ' },
      'text',
      { ...one, message: 'x'.repeat(4_001) },
      { ...one, path: 'p/'.repeat(600) },
    ];
    const parsed = parseFindings(block(JSON.stringify(items)));
    expect(parsed.findings).toEqual([expect.objectContaining({ path: 'src/a.ts', line: 3 })]);
    expect(parsed.problems).toEqual([
      'findings[1].severity must be one of critical, high, medium, low, info',
      'findings[2].line must be >= 1',
      'findings[3].path is required',
      'findings[4].extra is not allowed',
      'findings[5].path must be a file inside the repository (no "..")',
      'findings[6].endLine must not be before line',
      'findings[7].message must not be blank',
      'findings[8] must be object',
      'findings[9].message must NOT have more than 4000 characters',
      'findings[10].path must NOT have more than 1000 characters',
    ]);
  });
});

describe('bounded: at most 100 findings, message ≤ 4,000 characters, path ≤ 1,000', () => {
  test('findings beyond the first 100 are ignored and counted', () => {
    const items = Array.from({ length: 130 }, (_, i) => ({ ...one, line: i + 1 }));
    const parsed = parseFindings(block(JSON.stringify(items)));
    expect(parsed.findings).toHaveLength(MAX_FINDINGS);
    expect(parsed.findings.at(-1)?.line).toBe(100);
    expect(parsed.problems).toEqual(['30 finding(s) beyond the first 100 ignored']);
  });

  test('a message of exactly 4,000 characters is kept', () => {
    expect(parseFindings(block(JSON.stringify([{ ...one, message: 'x'.repeat(4_000) }]))).findings).toHaveLength(1);
  });
});

describe('paths are normalized: no "..", no leading "/"', () => {
  test.each([
    ['/src/a.ts', 'src/a.ts'],
    ['./src//a.ts', 'src/a.ts'],
    ['src\\win\\a.ts', 'src/win/a.ts'],
    ['a/./b.ts', 'a/b.ts'],
  ])('%s → %s', (path, normalized) => {
    expect(normalizeFindingPath(path)).toBe(normalized);
  });

  test.each(['..', 'a/../b', '../x', '/', '.', 'a\0b'])('%j is refused', (path) => {
    expect(normalizeFindingPath(path)).toBeNull();
  });
});

describe('what the stand-in harnesses say for @finding is read back as the findings it names', () => {
  // Copied from the stand-ins' final message (deploy/local/harness-stand-ins, src/directives.ts findingsMessage,
  // for `@finding app.js "run(req" high Unchecked input.`); workspaces do not import each other's sources.
  const standInMessage =
    'Review done: 1 finding(s).\n\n```ars-findings\n[\n  {\n    "path": "app.js",\n    "line": 2,\n    "severity": "high",\n    "message": "Unchecked input.",\n    "anchor": "run(req.body.id);"\n  }\n]\n```';
  const none = 'Review done: 0 finding(s).\n\n```ars-findings\n[]\n```';

  test('one finding, no problem; none, no problem', () => {
    expect(parseFindings(standInMessage)).toEqual({
      readable: true,
      findings: [{ path: 'app.js', line: 2, endLine: 2, severity: 'high', message: 'Unchecked input.', anchor: 'run(req.body.id);' }],
      problems: [],
    });
    expect(parseFindings(none)).toEqual({ readable: true, findings: [], problems: [] });
  });
});
