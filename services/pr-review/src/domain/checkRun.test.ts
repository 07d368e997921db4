import type { FindingSeverity } from '@ars/contract';
import { classifyFindings, type Classification, type StoredFinding } from './classifyFindings.js';
import { ANNOTATIONS_PER_REQUEST, MAX_SUMMARY_LENGTH, annotationBatches, checkConclusion, checkRunSummary } from './checkRun.js';

const fp = (n: number): string => n.toString(16).padStart(24, '0');
const stored = (n: number, state: StoredFinding['state'], over: Partial<StoredFinding> = {}): StoredFinding => ({
  fingerprint: fp(n),
  path: 'src/a.ts',
  line: n,
  endLine: n,
  severity: 'medium',
  message: `Message ${n}.`,
  state,
  ...over,
});
const classification = (findings: StoredFinding[]): Classification => ({
  findings,
  new: findings.filter((f) => f.state === 'new'),
  persisting: findings.filter((f) => f.state === 'persisting'),
  fixed: findings.filter((f) => f.state === 'fixed'),
  dismissed: findings.filter((f) => f.state === 'dismissed'),
});

describe('the conclusion: failure when a new or persisting finding is critical or high, neutral when only lower ones, success when none', () => {
  test.each<[string, [StoredFinding['state'], FindingSeverity][], string]>([
    ['nothing', [], 'success'],
    ['a new critical', [['new', 'critical']], 'failure'],
    ['a persisting high', [['persisting', 'high']], 'failure'],
    ['a new medium', [['new', 'medium']], 'neutral'],
    [
      'persisting low and info',
      [
        ['persisting', 'low'],
        ['new', 'info'],
      ],
      'neutral',
    ],
    [
      'a medium and a high',
      [
        ['new', 'medium'],
        ['persisting', 'high'],
      ],
      'failure',
    ],
    [
      'only fixed and dismissed criticals',
      [
        ['fixed', 'critical'],
        ['dismissed', 'critical'],
      ],
      'success',
    ],
  ])('%s → %s', (_name, rows, conclusion) => {
    expect(checkConclusion(classification(rows.map(([state, severity], i) => stored(i + 1, state, { severity }))))).toBe(conclusion);
  });
});

describe('annotations: critical/high → failure, medium → warning, low/info → notice, batched 50 per update', () => {
  test('120 open findings → 3 batches of 50, 50 and 20', () => {
    const findings = Array.from({ length: 120 }, (_, i) => stored(i + 1, i % 2 === 0 ? 'new' : 'persisting'));
    const batches = annotationBatches(classification(findings));
    expect(batches.map((b) => b.length)).toEqual([ANNOTATIONS_PER_REQUEST, ANNOTATIONS_PER_REQUEST, 20]);
    expect(new Set(batches.flat().map((a) => a.fingerprint)).size).toBe(120);
  });

  test('each severity has its level; fixed and dismissed findings are not annotated', () => {
    const severities: FindingSeverity[] = ['critical', 'high', 'medium', 'low', 'info'];
    const findings = [
      ...severities.map((severity, i) => stored(i + 1, 'new', { severity, title: i === 0 ? 'Boom' : undefined })),
      stored(9, 'fixed'),
      stored(10, 'dismissed'),
    ];
    const [batch] = annotationBatches(classification(findings));
    expect(batch?.map((a) => a.level)).toEqual(['failure', 'failure', 'warning', 'notice', 'notice']);
    expect(batch?.[0]).toEqual({
      fingerprint: fp(1),
      path: 'src/a.ts',
      startLine: 1,
      endLine: 1,
      level: 'failure',
      title: 'critical: Boom',
      message: 'Message 1.',
    });
  });

  test('no open finding, no batch', () => {
    expect(annotationBatches(classification([]))).toEqual([]);
  });
});

describe('the summary counts new, persisting and fixed findings, keeps refused lines in full, and is capped at 65,535 characters with the overflow counted', () => {
  test('counts, then the findings whose line the source host refused, then one line per finding', () => {
    const result = classifyFindings(
      [{ ...stored(3, 'new'), state: 'new' }],
      [
        { ...stored(1, 'new'), title: 'Off the diff', message: 'Line one.\nLine two.' },
        { ...stored(2, 'new'), severity: 'high' },
      ],
    );
    const summary = checkRunSummary({ classification: result, refused: [fp(1)], headSha: 'abc1234' });
    expect(summary).toBe(
      [
        '**2 new, 0 persisting, 1 fixed** at `abc1234`.',
        '',
        '| state | findings |',
        '|---|---|',
        '| new | 2 |',
        '| persisting | 0 |',
        '| fixed | 1 |',
        '',
        '### Not on the diff',
        'These findings are on lines the pull request does not change, so they are not review comments:',
        '- **medium** `src/a.ts:1` Off the diff: Line one. Line two.',
        '',
        '### Open',
        '- new **medium** `src/a.ts:1` Off the diff',
        '- new **high** `src/a.ts:2` Message 2.',
        '',
        '### Fixed',
        '- **medium** `src/a.ts:3` Message 3.',
      ].join('\n'),
    );
  });

  test('too many findings to list: the summary stays within the limit and says how many lines are not listed', () => {
    const findings = Array.from({ length: 100 }, (_, i) => stored(i + 1, 'new', { message: `${'m'.repeat(3_990)} ${i}` }));
    const summary = checkRunSummary({ classification: classification(findings), refused: findings.map((f) => f.fingerprint), headSha: 'abc' });
    expect(summary.length).toBeLessThanOrEqual(MAX_SUMMARY_LENGTH);
    const listedInFull = summary.split('\n').filter((l) => l.startsWith('- **medium**')).length;
    expect(listedInFull).toBeGreaterThan(10);
    expect(summary).toMatch(new RegExp(`_… and ${200 - listedInFull} more finding line\\(s\\) not listed: the summary is limited to 65535 characters\\._$`));
  });
});
