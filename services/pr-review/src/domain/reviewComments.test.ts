import { FINDINGS_FENCE } from '@ars/contract';
import { classifyFindings, type StoredFinding } from './classifyFindings.js';
import { parseFindings } from './findingsFormat.js';
import { fingerprintFindings } from './fingerprint.js';
import { findingCommentBody, findingMarker, fixedReplyBody, markerOf, planFixedReplies, planReviewComments, type HostComment } from './reviewComments.js';

const APP = 'ars-review[bot]';
const fp = (n: number): string => String(n).padStart(24, 'a');
const stored = (n: number, state: StoredFinding['state'], over: Partial<StoredFinding> = {}): StoredFinding => ({
  fingerprint: fp(n),
  path: 'src/a.ts',
  line: n,
  endLine: n,
  severity: 'high',
  title: `Problem ${n}`,
  message: `Message ${n}.`,
  state,
  ...over,
});
const comment = (id: string, body: string, over: Partial<HostComment> = {}): HostComment => ({
  id,
  path: 'src/a.ts',
  line: 1,
  body,
  inReplyToId: null,
  author: APP,
  ...over,
});

describe('a review comment carries the hidden marker <!-- ars:f:<fingerprint> --> and markerOf reads it back', () => {
  test('body: severity and title, the message, the marker', () => {
    const body = findingCommentBody(stored(1, 'new'));
    expect(body).toBe(`**High**: Problem 1\n\nMessage 1.\n\n<!-- ars:f:${fp(1)} -->`);
    expect(markerOf(body)).toBe(fp(1));
    expect(findingCommentBody({ ...stored(2, 'new'), title: undefined, severity: 'info' })).toMatch(/^\*\*Info\*\*\n\nMessage 2\./);
  });

  test('a body without a marker, or with a malformed one, has none', () => {
    expect(markerOf('Looks fine.')).toBeNull();
    expect(markerOf('<!-- ars:f:XYZ -->')).toBeNull();
    expect(markerOf(`<!-- ars:f:${'a'.repeat(33)} -->`)).toBeNull();
    expect(markerOf(`quoted:\n> ${findingMarker(fp(3))}`)).toBe(fp(3));
  });
});

describe('comments are posted for new findings only, never a second one for a finding whose marker is on the pull request; its body is edited when its text changed', () => {
  test('new without a comment → posted; a span → startLine..line', () => {
    const plan = planReviewComments({
      classification: { new: [stored(1, 'new'), stored(2, 'new', { line: 2, endLine: 5 })], persisting: [] },
      existing: [],
      appLogin: APP,
    });
    expect(plan.edit).toEqual([]);
    expect(plan.post).toEqual([
      { fingerprint: fp(1), path: 'src/a.ts', line: 1, startLine: null, body: findingCommentBody(stored(1, 'new')) },
      { fingerprint: fp(2), path: 'src/a.ts', line: 5, startLine: 2, body: findingCommentBody(stored(2, 'new')) },
    ]);
  });

  test('a persisting finding whose marker is there: no duplicate; same text → nothing, other text → edited', () => {
    const same = stored(1, 'persisting', { line: 40 });
    const reworded = stored(2, 'persisting', { message: 'Said better.' });
    const plan = planReviewComments({
      classification: { new: [], persisting: [same, reworded] },
      existing: [comment('c1', findingCommentBody(stored(1, 'new'))), comment('c2', findingCommentBody(stored(2, 'new')))],
      appLogin: APP,
    });
    expect(plan.post).toEqual([]);
    expect(plan.edit).toEqual([{ commentId: 'c2', fingerprint: fp(2), body: findingCommentBody(reworded) }]);
  });

  test('a persisting finding without a comment is not posted (it is in the summary); a new one whose marker is there is not posted twice', () => {
    const plan = planReviewComments({
      classification: { new: [stored(1, 'new')], persisting: [stored(2, 'persisting')] },
      existing: [comment('c1', findingCommentBody(stored(1, 'new')))],
      appLogin: APP,
    });
    expect(plan).toEqual({ post: [], edit: [] });
  });

  test("only the app's own thread-starting comments count: a person quoting the marker, or a reply, does not", () => {
    const body = findingCommentBody(stored(1, 'new'));
    const plan = planReviewComments({
      classification: { new: [stored(1, 'new')], persisting: [] },
      existing: [comment('h1', `> ${body}\nI disagree`, { author: 'alice' }), comment('r1', body, { inReplyToId: 'x' })],
      appLogin: APP,
    });
    expect(plan.post.map((p) => p.fingerprint)).toEqual([fp(1)]);
  });
});

describe('"fixed in <sha>" is replied only to fixed findings whose marked comment exists and has no human reply', () => {
  const existing: HostComment[] = [
    comment('c1', findingCommentBody(stored(1, 'new'))),
    comment('c2', findingCommentBody(stored(2, 'new'))),
    comment('h2', 'I think this is fine.', { inReplyToId: 'c2', author: 'alice' }),
    comment('c3', findingCommentBody(stored(3, 'new'))),
    comment('b3', fixedReplyBody('0ld5ha'), { inReplyToId: 'c3' }),
    comment('c5', findingCommentBody(stored(5, 'new'))),
    comment('b5', 'A note of ours.', { inReplyToId: 'c5', author: 'ARS-Review[bot]' }),
  ];

  test('no reply yet → replied; a human reply → not; ours already → not; no comment → not; our own notes are not human', () => {
    const plan = planFixedReplies({
      fixed: [stored(1, 'fixed'), stored(2, 'fixed'), stored(3, 'fixed'), stored(4, 'fixed'), stored(5, 'fixed')],
      existing,
      appLogin: APP,
      headSha: 'abc1234',
    });
    expect(plan.reply).toEqual([
      { inReplyToId: 'c1', fingerprint: fp(1), body: 'Fixed in `abc1234`.' },
      { inReplyToId: 'c5', fingerprint: fp(5), body: 'Fixed in `abc1234`.' },
    ]);
    expect(plan.skipped).toEqual([
      { fingerprint: fp(2), reason: 'human-reply' },
      { fingerprint: fp(3), reason: 'already-replied' },
      { fingerprint: fp(4), reason: 'no-comment' },
    ]);
  });
});

describe('across a push that shifts lines, a rerun posts no duplicate comment and replies "Fixed in" only where a finding went away', () => {
  const answer = (findings: object[]): string => `Done.\n\`\`\`${FINDINGS_FENCE}\n${JSON.stringify(findings)}\n\`\`\``;
  const attempt = (message: string, files: Record<string, string>, previous: StoredFinding[]) => {
    const { findings, problems } = parseFindings(message);
    expect(problems).toEqual([]);
    return classifyFindings(
      previous,
      fingerprintFindings(findings, (path) => files[path]?.split('\n') ?? null),
    );
  };
  /** What the source host holds after the adapter posted a plan: our comments, ids c<n>. */
  const posted = (plan: ReturnType<typeof planReviewComments>, from: HostComment[]): HostComment[] => [
    ...from,
    ...plan.post.map((p, i) => comment(`c${from.length + i}`, p.body, { path: p.path, line: p.line })),
  ];

  test('attempt 1 posts two comments; attempt 2 (lines shifted, one fixed, one new) posts only the new one and replies to the fixed one', () => {
    const v1 = { 'src/a.ts': 'const x = 1;\neval(input);\nrun(query + id);' };
    const first = attempt(
      answer([
        { path: 'src/a.ts', line: 2, severity: 'critical', message: 'eval of input', ruleId: 'eval' },
        { path: 'src/a.ts', line: 3, severity: 'high', message: 'query built by hand', ruleId: 'sql' },
      ]),
      v1,
      [],
    );
    const plan1 = planReviewComments({ classification: first, existing: [], appLogin: APP });
    expect(plan1.post).toHaveLength(2);
    const onHost = posted(plan1, []);

    // The push: two lines inserted above, eval removed, a new problem further down.
    const v2 = { 'src/a.ts': '// header\n// more\nconst x = 1;\nrun(query + id);\nfs.rmSync(dir);' };
    const second = attempt(
      answer([
        { path: 'src/a.ts', line: 4, severity: 'high', message: 'query built by hand (reworded)', ruleId: 'sql' },
        { path: 'src/a.ts', line: 5, severity: 'medium', message: 'recursive delete', ruleId: 'rm' },
      ]),
      v2,
      first.findings,
    );
    expect([second.new.length, second.persisting.length, second.fixed.length]).toEqual([1, 1, 1]);
    const plan2 = planReviewComments({ classification: second, existing: onHost, appLogin: APP });
    expect(plan2.post.map((p) => [p.line, p.fingerprint])).toEqual([[5, second.new[0]?.fingerprint]]);
    expect(plan2.edit.map((e) => e.fingerprint)).toEqual([second.persisting[0]?.fingerprint]);
    const replies = planFixedReplies({ fixed: second.fixed, existing: onHost, appLogin: APP, headSha: 'b2' });
    expect(replies.reply.map((r) => r.fingerprint)).toEqual([second.fixed[0]?.fingerprint]);
  });
});
