import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalSourceHost } from './localSourceHost.js';
import type { CheckRunAnnotation, RepositoryRef } from './sourceHost.js';

const lines = (n: number, label = 'line') => Array.from({ length: n }, (_, i) => `${label} ${i + 1}`).join('\n') + '\n';
const IDENTITY = ['-c', 'user.name=Dev', '-c', 'user.email=dev@example.test'];

let root: string;
let work: string;
let repo: RepositoryRef;
let host: LocalSourceHost;

/** Runs git in the working clone (argument vector, no shell). */
const git = (...args: string[]): string =>
  execFileSync('git', [...IDENTITY, ...args], { cwd: work })
    .toString()
    .trim();
/** Writes files in the clone, commits them on the current branch and pushes it; answers the new commit. */
const commitAndPush = (files: Record<string, string>, message: string): string => {
  for (const [path, content] of Object.entries(files)) writeFileSync(join(work, path), content);
  git('add', '-A');
  git('commit', '--quiet', '-m', message);
  git('push', '--quiet', 'origin', 'HEAD');
  return git('rev-parse', 'HEAD');
};

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'ars-source-host-prs-'));
  host = new LocalSourceHost(root);
  const created = await host.createRepository({ owner: 'acme', name: 'widgets', files: { 'app.ts': lines(20), 'old.ts': lines(3, 'old') } });
  repo = { installation: { account: 'acme', externalId: null }, fullName: 'acme/widgets' };
  work = join(root, 'work');
  execFileSync('git', ['clone', '--quiet', created.cloneUrl, work]);
  git('checkout', '--quiet', '-b', 'feature');
  const appLines = lines(20).split('\n');
  appLines[9] = 'line 10 changed';
  commitAndPush({ 'app.ts': appLines.join('\n'), 'new.ts': 'export const x = 1;\n' }, 'Change line 10, add new.ts');
  git('rm', '--quiet', 'old.ts');
  git('commit', '--quiet', '-m', 'Remove old.ts');
  git('push', '--quiet', 'origin', 'HEAD');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('a pull request opens from a head branch into a base branch, and its head SHA follows a push to the head branch', () => {
  test('open → the branches’ SHAs; a new commit on the head branch changes headSha; closing keeps the SHAs of that moment', async () => {
    const pr = await host.openPullRequest('acme/widgets', { head: 'feature', base: 'main', title: 'Change line 10' });
    expect(pr).toEqual({
      number: 1,
      state: 'open',
      merged: false,
      title: 'Change line 10',
      headRef: 'feature',
      headSha: git('rev-parse', 'feature'),
      baseRef: 'main',
      baseSha: git('rev-parse', 'origin/main'),
      url: `file://${join(root, 'acme', 'widgets.git')}#pull/1`,
    });
    git('checkout', '--quiet', '-b', 'moving', 'origin/main');
    git('push', '--quiet', 'origin', 'moving');
    const moving = await host.openPullRequest('acme/widgets', { head: 'moving', base: 'main', title: 'Moving' });
    expect(moving.number).toBe(2);
    const pushed = commitAndPush({ 'moving.ts': 'x\n' }, 'Move');
    expect((await host.getPullRequest(repo, 2))?.headSha).toBe(pushed);

    const closed = await host.closePullRequest('acme/widgets', 2);
    expect(closed).toMatchObject({ state: 'closed', merged: false, headSha: pushed });
    commitAndPush({ 'moving.ts': 'y\n' }, 'After close');
    expect((await host.getPullRequest(repo, 2))?.headSha).toBe(pushed);
    git('checkout', '--quiet', 'feature');
  });

  test('a missing pull request reads as null; a second open one for the same branches, a missing branch, a name git refuses or head = base is unprocessable', async () => {
    expect(await host.getPullRequest(repo, 99)).toBeNull();
    await expect(host.openPullRequest('acme/widgets', { head: 'feature', base: 'main', title: 'again' })).rejects.toMatchObject({
      kind: 'unprocessable',
      status: 422,
    });
    await expect(host.openPullRequest('acme/widgets', { head: 'nope', base: 'main', title: 'x' })).rejects.toMatchObject({ kind: 'unprocessable' });
    await expect(host.openPullRequest('acme/widgets', { head: 'main', base: 'main', title: 'x' })).rejects.toMatchObject({ kind: 'unprocessable' });
    for (const head of ['../main', '--upload-pack=x', 'refs/heads/feature', 'a..b']) {
      await expect(host.openPullRequest('acme/widgets', { head, base: 'main', title: 'x' })).rejects.toMatchObject({
        kind: 'unprocessable',
        message: expect.stringMatching(/^head /),
      });
    }
    await expect(host.closePullRequest('acme/widgets', 99)).rejects.toMatchObject({ kind: 'not_found', status: 404 });
  });
});

describe('the diff and the files are git diff base...head: what the head branch changed since it left the base', () => {
  test('modified, added and removed files with their counts and hunks; a commit on the base branch after branching is not in them', async () => {
    git('checkout', '--quiet', '-b', 'base-moves', 'origin/main');
    commitAndPush({ 'base-only.ts': 'b\n' }, 'Base moves on');
    git('push', '--quiet', 'origin', 'HEAD:main');
    git('checkout', '--quiet', 'feature');

    const files = await host.listPullRequestFiles(repo, 1);
    expect(files.map((f) => [f.path, f.status, f.additions, f.deletions])).toEqual([
      ['app.ts', 'modified', 1, 1],
      ['new.ts', 'added', 1, 0],
      ['old.ts', 'removed', 0, 3],
    ]);
    expect(files[0]?.patch).toMatch(/^@@ -7,7 \+7,7 @@/);
    expect(files[0]?.patch).toContain('-line 10\n+line 10 changed');
    expect(files[1]?.patch).toBe('@@ -0,0 +1 @@\n+export const x = 1;');

    const diff = await host.pullRequestDiff(repo, 1);
    expect(diff).toContain('diff --git a/app.ts b/app.ts');
    expect(diff).toContain('+line 10 changed');
    expect(diff).not.toContain('base-only.ts');
  });

  test('a renamed file is one entry with its new path', async () => {
    git('checkout', '--quiet', '-b', 'rename', 'origin/main');
    git('mv', 'app.ts', 'main.ts');
    git('commit', '--quiet', '-m', 'Rename');
    git('push', '--quiet', 'origin', 'HEAD');
    git('checkout', '--quiet', 'feature');
    const pr = await host.openPullRequest('acme/widgets', { head: 'rename', base: 'main', title: 'Rename' });
    expect(await host.listPullRequestFiles(repo, pr.number)).toEqual([{ path: 'main.ts', status: 'renamed', additions: 0, deletions: 0, patch: null }]);
  });
});

describe('check runs: the latest one by name on a head SHA is the newest; an update completes it and keeps every annotation', () => {
  test('two of one name, one of another; 120 annotations in one update; a long summary is cut at 65,535', async () => {
    const head = git('rev-parse', 'feature');
    const first = await host.createCheckRun(repo, { name: 'ARS review', headSha: head, externalId: 'attempt-1', status: 'queued' });
    const second = await host.createCheckRun(repo, {
      name: 'ARS review',
      headSha: head,
      externalId: 'attempt-2',
      status: 'in_progress',
      detailsUrl: 'http://ars.local/runs/2',
    });
    await host.createCheckRun(repo, { name: 'Other', headSha: head, externalId: 'x', status: 'queued' });
    expect(first).toEqual({ id: first.id, name: 'ARS review', headSha: head, externalId: 'attempt-1', status: 'queued', conclusion: null, url: null });
    expect(await host.latestCheckRun(repo, head, 'ARS review')).toEqual({ ...second, status: 'in_progress' });
    expect(await host.latestCheckRun(repo, git('rev-parse', 'origin/main'), 'ARS review')).toBeNull();

    const annotations: CheckRunAnnotation[] = Array.from({ length: 120 }, (_, i) => ({
      path: 'app.ts',
      startLine: 10,
      endLine: 10,
      level: 'failure',
      message: `m${i}`,
    }));
    const done = await host.updateCheckRun(repo, second.id, { conclusion: 'failure', output: { title: 'Findings', summary: 'x'.repeat(70_000), annotations } });
    expect(done).toMatchObject({ status: 'completed', conclusion: 'failure' });
    const cut = (await host.readCheckRun('acme/widgets', second.id))?.output?.summary ?? '';
    expect([cut.length, cut.endsWith('(cut at 65,535 characters)')]).toEqual([65_535, true]);
    await host.updateCheckRun(repo, second.id, { output: { title: 'Findings', summary: 'more', annotations: annotations.slice(0, 5) } });
    const record = await host.readCheckRun('acme/widgets', second.id);
    expect(record?.annotations).toHaveLength(125);
    expect(record?.output?.summary).toBe('more');
    expect(record?.detailsUrl).toBe('http://ars.local/runs/2');
  });

  test('a SHA the repository does not have is unprocessable; an unknown check run is not_found', async () => {
    await expect(host.createCheckRun(repo, { name: 'n', headSha: 'f'.repeat(40), externalId: 'e', status: 'queued' })).rejects.toMatchObject({
      kind: 'unprocessable',
    });
    await expect(host.updateCheckRun(repo, 987654, { status: 'in_progress' })).rejects.toMatchObject({ kind: 'not_found' });
  });
});

describe('reviews, review comments, replies and edits persist across a new adapter instance on the same root', () => {
  test('a review on a diff line, a reply joining its thread and an edit are read back by another instance', async () => {
    const head = git('rev-parse', 'feature');
    const review = await host.createReview(repo, 1, { commitSha: head, body: 'One finding', comments: [{ path: 'app.ts', line: 10, body: 'changed?' }] });
    const [comment] = await host.listReviewComments(repo, 1);
    expect(comment).toEqual({ id: comment?.id, path: 'app.ts', line: 10, body: 'changed?', inReplyToId: null, author: 'agent-run-service[bot]' });
    expect(comment?.id).toBeGreaterThan(review.id);
    const reply = await host.replyToReviewComment(repo, 1, comment?.id ?? 0, 'fixed');
    const replyToReply = await host.replyToReviewComment(repo, 1, reply.id, 'again');
    expect([reply.inReplyToId, replyToReply.inReplyToId]).toEqual([comment?.id, comment?.id]);
    await host.updateReviewComment(repo, comment?.id ?? 0, 'changed? (edited)');

    const again = new LocalSourceHost(root);
    expect((await again.listReviewComments(repo, 1)).map((c) => [c.path, c.line, c.body, c.inReplyToId])).toEqual([
      ['app.ts', 10, 'changed? (edited)', null],
      ['app.ts', 10, 'fixed', comment?.id],
      ['app.ts', 10, 'again', comment?.id],
    ]);
    const state = JSON.parse(readFileSync(join(root, '.ars', 'acme', 'widgets.json'), 'utf8')) as { reviews: { id: number; event: string }[] };
    expect(state.reviews).toEqual([expect.objectContaining({ id: review.id, event: 'COMMENT' })]);
  });

  test('a comment on a line outside the diff, or on a file not in it, refuses the whole review (unprocessable)', async () => {
    const head = git('rev-parse', 'feature');
    const before = (await host.listReviewComments(repo, 1)).length;
    await expect(host.createReview(repo, 1, { commitSha: head, body: 'x', comments: [{ path: 'app.ts', line: 1, body: 'not shown' }] })).rejects.toMatchObject({
      kind: 'unprocessable',
      status: 422,
    });
    await expect(host.createReview(repo, 1, { commitSha: head, body: 'x', comments: [{ path: 'nowhere.ts', line: 1, body: 'x' }] })).rejects.toMatchObject({
      kind: 'unprocessable',
    });
    expect(await host.listReviewComments(repo, 1)).toHaveLength(before);
    await expect(host.replyToReviewComment(repo, 1, 424242, 'x')).rejects.toMatchObject({ kind: 'not_found' });
  });
});

describe('writers of one repository’s state in one process are serialized, and the file is replaced whole', () => {
  test('40 check runs created at once through two instances: 40 distinct ids, all kept, no temp file left', async () => {
    const head = git('rev-parse', 'feature');
    const other = new LocalSourceHost(root);
    const runs = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? host : other).createCheckRun(repo, { name: 'burst', headSha: head, externalId: `b${i}`, status: 'queued' }),
      ),
    );
    expect(new Set(runs.map((r) => r.id)).size).toBe(40);
    const state = JSON.parse(readFileSync(join(root, '.ars', 'acme', 'widgets.json'), 'utf8')) as { checkRuns: { name: string }[] };
    expect(state.checkRuns.filter((r) => r.name === 'burst')).toHaveLength(40);
    expect(
      execFileSync('ls', [join(root, '.ars', 'acme')])
        .toString()
        .trim(),
    ).toBe('widgets.json');
  });
});

describe('a repository is reached only through its owner’s installation', () => {
  test('another account’s installation, a malformed or a missing name: not_found', async () => {
    await expect(host.getPullRequest({ installation: { account: 'someone', externalId: null }, fullName: 'acme/widgets' }, 1)).rejects.toMatchObject({
      kind: 'not_found',
    });
    await expect(host.getPullRequest({ installation: repo.installation, fullName: 'acme/../widgets' }, 1)).rejects.toMatchObject({ kind: 'not_found' });
    await expect(host.getPullRequest({ installation: repo.installation, fullName: 'acme/missing' }, 1)).rejects.toMatchObject({ kind: 'not_found' });
  });
});

describe('pushCommit writes a commit on a branch on top of another, as a push would (a sample pull request’s head)', () => {
  test('nested files change on top of the base’s tree; the branch is created, then moved by the next commit; a bad path is refused', async () => {
    const first = await host.pushCommit('acme/widgets', {
      branch: 'sample',
      from: 'main',
      files: { 'docs/a/b.md': 'b\n', 'app.ts': 'changed\n' },
      message: 'Sample',
    });
    expect(await host.fileContent(repo, first, 'docs/a/b.md')).toBe('b\n');
    expect(await host.fileContent(repo, first, 'app.ts')).toBe('changed\n');
    expect(await host.fileContent(repo, first, 'old.ts')).toBe(lines(3, 'old'));
    const second = await host.pushCommit('acme/widgets', { branch: 'sample', from: 'sample', files: { 'new.md': 'n\n' }, message: 'More' });
    expect(await host.fileContent(repo, 'sample', 'new.md')).toBe('n\n');
    expect(await host.fileContent(repo, second, 'docs/a/b.md')).toBe('b\n');
    await expect(host.pushCommit('acme/widgets', { branch: 'sample', from: 'main', files: { '../x': 'x' }, message: 'Bad' })).rejects.toMatchObject({
      kind: 'unprocessable',
    });
  });
});
