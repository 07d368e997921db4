import { generateKeyPairSync } from 'node:crypto';
import { startGitHubStandIn, type GitHubStandIn, type StandInPullRequestFile } from '@ars/github-stand-in';
import { GitHubAppSourceHost } from './githubApp.js';
import type { CheckRunAnnotation, RepositoryRef } from './sourceHost.js';

const APP_ID = '5150';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const privatePem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
const HEAD = 'a'.repeat(40);
const BASE = 'b'.repeat(40);
const repo: RepositoryRef = { installation: { account: 'acme', externalId: 11 }, fullName: 'acme/widgets' };
const patch = '@@ -1,3 +1,4 @@\n const a = 1;\n-const b = 2;\n+const b = 3;\n+const c = 4;\n const d = 5;';
const files: StandInPullRequestFile[] = [
  { filename: 'src/app.ts', status: 'modified', patch },
  { filename: 'src/new.ts', status: 'added', patch: '@@ -0,0 +1,2 @@\n+export const x = 1;\n+export const y = 2;' },
];

let github: GitHubStandIn;
let host: GitHubAppSourceHost;
let pr: number;
beforeAll(async () => {
  github = await startGitHubStandIn({ appId: APP_ID, publicKey, installations: { 11: [{ owner: 'acme', name: 'widgets', defaultBranch: 'main' }] } });
  host = new GitHubAppSourceHost({ appId: APP_ID, privateKey: privatePem, apiUrl: github.url });
  pr = github.openPullRequest('acme/widgets', { title: 'Add c', head: { ref: 'feature', sha: HEAD }, base: { ref: 'main', sha: BASE }, files });
});
afterAll(async () => {
  await github.close();
});

describe('a pull request is read as GitHub answers it, its head SHA following a push; a missing one is null', () => {
  test('number, state, title, refs, SHAs and the html URL; a push moves headSha', async () => {
    expect(await host.getPullRequest(repo, pr)).toEqual({
      number: pr,
      state: 'open',
      merged: false,
      title: 'Add c',
      headRef: 'feature',
      headSha: HEAD,
      baseRef: 'main',
      baseSha: BASE,
      url: `https://github.com/acme/widgets/pull/${pr}`,
    });
    const other = github.openPullRequest('acme/widgets', {
      title: 'Moving',
      head: { ref: 'moving', sha: '1'.repeat(40) },
      base: { ref: 'main', sha: BASE },
      files,
    });
    github.pushHead('acme/widgets', other, { sha: '2'.repeat(40) });
    expect((await host.getPullRequest(repo, other))?.headSha).toBe('2'.repeat(40));
    github.closePullRequest('acme/widgets', other, { merged: true });
    expect(await host.getPullRequest(repo, other)).toMatchObject({ state: 'closed', merged: true });
    expect(await host.getPullRequest(repo, 999)).toBeNull();
  });
});

describe('the changed files are read across every page with their patches, and the diff in GitHub’s diff media type', () => {
  test('130 files over two pages of 100; the diff names each file with its hunks', async () => {
    const many = Array.from({ length: 130 }, (_, i) => ({
      filename: `f/${String(i).padStart(3, '0')}.ts`,
      status: 'added' as const,
      patch: '@@ -0,0 +1 @@\n+x',
    }));
    const big = github.openPullRequest('acme/widgets', {
      title: 'Many',
      head: { ref: 'many', sha: '3'.repeat(40) },
      base: { ref: 'main', sha: BASE },
      files: many,
    });
    const listed = await host.listPullRequestFiles(repo, big);
    expect(listed).toHaveLength(130);
    expect(listed[129]).toEqual({ path: 'f/129.ts', status: 'added', additions: 1, deletions: 0, patch: '@@ -0,0 +1 @@\n+x' });
    expect(github.requests).toEqual(expect.arrayContaining([`GET /repos/acme/widgets/pulls/${big}/files?per_page=100&page=2`]));

    expect(await host.listPullRequestFiles(repo, pr)).toEqual([
      { path: 'src/app.ts', status: 'modified', additions: 2, deletions: 1, patch },
      { path: 'src/new.ts', status: 'added', additions: 2, deletions: 0, patch: files[1]?.patch },
    ]);
    const diff = await host.pullRequestDiff(repo, pr);
    expect(diff).toContain(`diff --git a/src/app.ts b/src/app.ts\n--- a/src/app.ts\n+++ b/src/app.ts\n${patch}\n`);
    expect(diff).toContain('--- /dev/null\n+++ b/src/new.ts\n');
  });
});

describe('a check run is created with its external id, and the latest one by name on a head SHA is the newest', () => {
  test('two runs of one name and one of another: latest is the second of the name; another SHA has none', async () => {
    const first = await host.createCheckRun(repo, { name: 'ARS review', headSha: HEAD, externalId: 'attempt-1', status: 'queued' });
    expect(first).toEqual({
      id: first.id,
      name: 'ARS review',
      headSha: HEAD,
      externalId: 'attempt-1',
      status: 'queued',
      conclusion: null,
      url: `https://github.com/acme/widgets/runs/${first.id}`,
    });
    const second = await host.createCheckRun(repo, {
      name: 'ARS review',
      headSha: HEAD,
      externalId: 'attempt-2',
      status: 'in_progress',
      detailsUrl: 'https://ars.example/runs/2',
    });
    await host.createCheckRun(repo, { name: 'Other', headSha: HEAD, externalId: 'x', status: 'queued' });
    expect(await host.latestCheckRun(repo, HEAD, 'ARS review')).toMatchObject({ id: second.id, externalId: 'attempt-2', status: 'in_progress' });
    expect(github.checkRuns('acme/widgets').find((r) => r.id === second.id)?.details_url).toBe('https://ars.example/runs/2');
    expect(await host.latestCheckRun(repo, BASE, 'ARS review')).toBeNull();
  });
});

describe('annotations go to GitHub at most 50 per request, appended across updates; summary and text are capped at 65,535', () => {
  test('120 annotations are three requests of 50, 50 and 20; the conclusion arrives with the last; a 70,000-character summary is cut', async () => {
    const run = await host.createCheckRun(repo, { name: 'Annotated', headSha: HEAD, externalId: 'attempt-3', status: 'in_progress' });
    const annotations: CheckRunAnnotation[] = Array.from({ length: 120 }, (_, i) => ({
      path: 'src/app.ts',
      startLine: i + 1,
      endLine: i + 1,
      level: 'warning',
      message: `finding ${i}`,
      ...(i === 0 ? { title: 'First' } : {}),
    }));
    const done = await host.updateCheckRun(repo, run.id, {
      conclusion: 'neutral',
      output: { title: '120 findings', summary: 's'.repeat(70_000), text: 'details', annotations },
    });
    expect(done).toMatchObject({ id: run.id, status: 'completed', conclusion: 'neutral' });
    const stored = github.checkRuns('acme/widgets').find((r) => r.id === run.id);
    expect(stored?.annotationBatches).toEqual([50, 50, 20]);
    expect(stored?.annotations.map((a) => a.message)).toEqual(annotations.map((a) => a.message));
    expect(stored?.annotations[0]).toEqual({
      path: 'src/app.ts',
      start_line: 1,
      end_line: 1,
      annotation_level: 'warning',
      message: 'finding 0',
      title: 'First',
    });
    expect(stored?.output.summary?.length).toBe(65_535);
    expect(stored?.output.text).toBe('details');
  });

  test('a status change alone is one request without output', async () => {
    const run = await host.createCheckRun(repo, { name: 'Plain', headSha: HEAD, externalId: 'attempt-4', status: 'queued' });
    expect(await host.updateCheckRun(repo, run.id, { status: 'in_progress' })).toMatchObject({ status: 'in_progress', conclusion: null });
    expect(github.checkRuns('acme/widgets').find((r) => r.id === run.id)?.output).toEqual({ title: null, summary: null, text: null });
  });
});

describe('a review is one COMMENT review with inline comments on lines of the diff; a line outside the diff is unprocessable', () => {
  test('the review and its comments are on the pull request, on the right side of the given commit', async () => {
    const review = await host.createReview(repo, pr, {
      commitSha: HEAD,
      body: 'Two findings',
      comments: [
        { path: 'src/app.ts', line: 3, body: 'c is new' },
        { path: 'src/new.ts', line: 2, body: 'y?' },
      ],
    });
    expect(github.reviews('acme/widgets', pr)).toEqual([
      expect.objectContaining({ id: review.id, event: 'COMMENT', state: 'COMMENTED', commit_id: HEAD, body: 'Two findings' }),
    ]);
    expect(github.reviewComments('acme/widgets', pr).map((c) => [c.path, c.line, c.side, c.body, c.pull_request_review_id])).toEqual([
      ['src/app.ts', 3, 'RIGHT', 'c is new', review.id],
      ['src/new.ts', 2, 'RIGHT', 'y?', review.id],
    ]);
  });

  test('a comment on line 40 of a file whose diff shows lines 1–4 refuses the whole review (422, unprocessable)', async () => {
    const before = github.reviews('acme/widgets', pr).length;
    await expect(host.createReview(repo, pr, { commitSha: HEAD, body: 'x', comments: [{ path: 'src/app.ts', line: 40, body: 'nope' }] })).rejects.toMatchObject(
      {
        name: 'SourceHostError',
        kind: 'unprocessable',
        status: 422,
      },
    );
    expect(github.reviews('acme/widgets', pr)).toHaveLength(before);
  });
});

describe('review comments are listed across every page; a reply joins the thread; an edit changes the body', () => {
  test('105 comments over two pages, oldest first, with their authors; reply and edit are seen by GitHub', async () => {
    const number = github.openPullRequest('acme/widgets', {
      title: 'Talk',
      head: { ref: 'talk', sha: '4'.repeat(40) },
      base: { ref: 'main', sha: BASE },
      files,
    });
    await host.createReview(repo, number, { commitSha: '4'.repeat(40), body: 'one', comments: [{ path: 'src/app.ts', line: 2, body: 'first' }] });
    const [mine] = github.reviewComments('acme/widgets', number);
    for (let i = 0; i < 104; i += 1) github.addReviewComment('acme/widgets', number, { user: 'octocat', body: `human ${i}`, inReplyTo: mine?.id ?? 0 });
    const listed = await host.listReviewComments(repo, number);
    expect(listed).toHaveLength(105);
    expect(listed[0]).toEqual({ id: mine?.id, path: 'src/app.ts', line: 2, body: 'first', inReplyToId: null, author: 'agent-run-service[bot]' });
    expect(listed[104]).toMatchObject({ path: 'src/app.ts', line: 2, body: 'human 103', inReplyToId: mine?.id, author: 'octocat' });
    expect(github.requests).toEqual(
      expect.arrayContaining([expect.stringMatching(new RegExp(`^GET /repos/acme/widgets/pulls/${number}/comments\\?.*page=2`))]),
    );

    const reply = await host.replyToReviewComment(repo, number, mine?.id ?? 0, 'fixed in 4444444');
    expect(reply).toMatchObject({ path: 'src/app.ts', line: 2, body: 'fixed in 4444444', inReplyToId: mine?.id, author: 'agent-run-service[bot]' });
    const edited = await host.updateReviewComment(repo, mine?.id ?? 0, 'first (edited)');
    expect(edited).toMatchObject({ id: mine?.id, body: 'first (edited)' });
    expect(github.reviewComments('acme/widgets', number).find((c) => c.id === mine?.id)?.body).toBe('first (edited)');
  });
});

describe('GitHub’s refusals arrive as one SourceHostError whose kind lets the caller decide', () => {
  const files = `/repos/acme/widgets/pulls/1/files`;
  test.each([
    ['403 → forbidden', { status: 403 as const }, { kind: 'forbidden', status: 403 }],
    [
      '403 with x-ratelimit-remaining 0 → rate_limited, waiting until the reset',
      { status: 403 as const, rateLimitExhausted: true },
      { kind: 'rate_limited', status: 403, retryAfterSeconds: expect.any(Number) },
    ],
    [
      '429 with Retry-After 30 → rate_limited after 30 s',
      { status: 429 as const, retryAfterSeconds: 30 },
      { kind: 'rate_limited', status: 429, retryAfterSeconds: 30 },
    ],
    ['404 → not_found', { status: 404 as const }, { kind: 'not_found', status: 404 }],
    ['422 → unprocessable', { status: 422 as const }, { kind: 'unprocessable', status: 422 }],
    ['503 → unavailable', { status: 503 as const }, { kind: 'unavailable', status: 503 }],
  ])('%s', async (_name, fault, expected) => {
    github.failNext({ method: 'GET', path: files, ...fault });
    const error: unknown = await host.listPullRequestFiles(repo, 1).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'SourceHostError', ...expected });
    if (fault.status === 403 && 'rateLimitExhausted' in fault) expect((error as { retryAfterSeconds: number }).retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(await host.listPullRequestFiles(repo, 1)).toHaveLength(2);
  });

  test('a repository the installation does not reach is not_found; a pull request of it reads as null', async () => {
    const elsewhere: RepositoryRef = { installation: repo.installation, fullName: 'other/repo' };
    await expect(host.listReviewComments(elsewhere, 1)).rejects.toMatchObject({ kind: 'not_found' });
    expect(await host.getPullRequest(elsewhere, 1)).toBeNull();
  });
});

const MILLION = 'x'.repeat(999_999) + '\n';
beforeAll(() => {
  github.setCommitFiles('acme/widgets', HEAD, {
    'src/app.ts': 'const b = 3;\n',
    'src/lib/util.ts': 'export const ü = "ünïcode";\n',
    'million.txt': MILLION,
    'over.txt': MILLION + 'x',
    'huge.txt': 'y'.repeat(2_000_000),
  });
  github.setCommitFiles('acme/widgets', BASE, { 'src/app.ts': 'const b = 2;\n' });
});

describe('a file’s text is read at the commit or ref asked for (GitHub’s contents, base64 decoded): the head and the base each answer their own content', () => {
  test('src/app.ts at the head and at the base SHA, by the base branch’s name; the path sent with its slashes', async () => {
    expect(await host.fileContent(repo, HEAD, 'src/app.ts')).toBe('const b = 3;\n');
    expect(await host.fileContent(repo, BASE, 'src/app.ts')).toBe('const b = 2;\n');
    expect(await host.fileContent(repo, 'main', 'src/app.ts')).toBe('const b = 2;\n');
    expect(await host.fileContent(repo, HEAD, 'src/lib/util.ts')).toBe('export const ü = "ünïcode";\n');
    expect(github.requests).toEqual(expect.arrayContaining([`GET /repos/acme/widgets/contents/src/app.ts?ref=${HEAD}`]));
  });
});

describe('a file that does not exist there is null: GitHub’s 404 for a missing path or an unknown ref', () => {
  test('a missing path, a path only at the head read at the base, an unknown ref, a repository the installation does not reach', async () => {
    expect(await host.fileContent(repo, HEAD, 'missing.ts')).toBeNull();
    expect(await host.fileContent(repo, BASE, 'src/lib/util.ts')).toBeNull();
    expect(await host.fileContent(repo, 'no-such-branch', 'src/app.ts')).toBeNull();
    expect(await host.fileContent({ installation: repo.installation, fullName: 'other/repo' }, HEAD, 'src/app.ts')).toBeNull();
  });
});

describe('a directory is not a regular file: null (GitHub answers an array of entries)', () => {
  test('src and src/lib', async () => {
    expect(await host.fileContent(repo, HEAD, 'src')).toBeNull();
    expect(await host.fileContent(repo, HEAD, 'src/lib')).toBeNull();
  });
});

describe('a file of at most 1,000,000 bytes is read; a larger file is null', () => {
  test('1,000,000 bytes → its text; 1,000,001 bytes → null; 2 MB (content empty, encoding none) → null', async () => {
    expect(await host.fileContent(repo, HEAD, 'million.txt')).toBe(MILLION);
    expect(await host.fileContent(repo, HEAD, 'over.txt')).toBeNull();
    expect(await host.fileContent(repo, HEAD, 'huge.txt')).toBeNull();
  });
});

describe('a path with a .. segment, a . or empty segment, or a NUL is refused: null, without a request', () => {
  test('src/../src/app.ts, .., ./src/app.ts, /src/app.ts, src//app.ts and a NUL', async () => {
    const before = github.requests.length;
    for (const path of ['src/../src/app.ts', '..', './src/app.ts', '/src/app.ts', 'src//app.ts', 'src/app.ts\0']) {
      expect(await host.fileContent(repo, HEAD, path)).toBeNull();
    }
    expect(github.requests.slice(before).filter((r) => r.includes('/contents'))).toEqual([]);
  });
});

describe('reading a file, GitHub’s other refusals arrive as the SourceHostError of their kind', () => {
  test('403 → forbidden, 503 → unavailable', async () => {
    github.failNext({ method: 'GET', path: '/repos/acme/widgets/contents/src/app.ts', status: 403 });
    await expect(host.fileContent(repo, HEAD, 'src/app.ts')).rejects.toMatchObject({ name: 'SourceHostError', kind: 'forbidden', status: 403 });
    github.failNext({ method: 'GET', path: '/repos/acme/widgets/contents/src/app.ts', status: 503 });
    await expect(host.fileContent(repo, HEAD, 'src/app.ts')).rejects.toMatchObject({ name: 'SourceHostError', kind: 'unavailable', status: 503 });
  });
});
