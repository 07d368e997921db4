import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalSourceHost } from './localSourceHost.js';

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'ars-source-host-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the local source host holds real bare git repositories with a default branch and a commit', () => {
  test('a created repository can be cloned and has its default branch checked out with the seed files', async () => {
    const host = new LocalSourceHost(root);
    const repo = await host.createRepository({ owner: 'acme', name: 'widgets', files: { 'README.md': 'hello\n', 'package.json': '{}\n' } });
    expect(repo.fullName).toBe('acme/widgets');
    const clone = join(root, 'clone');
    execFileSync('git', ['clone', '--quiet', repo.cloneUrl, clone]);
    expect(execFileSync('git', ['rev-parse', '--abbrev-ref', 'HEAD'], { cwd: clone }).toString().trim()).toBe('main');
    expect(readFileSync(join(clone, 'README.md'), 'utf8')).toBe('hello\n');
    expect(execFileSync('git', ['log', '--oneline'], { cwd: clone }).toString().trim().split('\n')).toHaveLength(1);
  });

  test('another default branch is honoured', async () => {
    const repo = await new LocalSourceHost(root).createRepository({ owner: 'acme', name: 'trunk-repo', defaultBranch: 'trunk' });
    const heads = execFileSync('git', ['ls-remote', '--heads', repo.cloneUrl]).toString();
    expect(heads).toContain('refs/heads/trunk');
  });

  test.each(['../evil', 'a/b', '.hidden', 'x.git'])('a name part %j is refused', async (bad) => {
    await expect(new LocalSourceHost(root).createRepository({ owner: 'acme', name: bad })).rejects.toThrow('invalid repository name');
  });
});

describe('the local source host lists an account’s repositories with the branch each HEAD names', () => {
  test('listRepositories reads <root>/<account>/*.git by name; an unknown account has none', async () => {
    const host = new LocalSourceHost(root);
    await host.createRepository({ owner: 'lister', name: 'b-repo' });
    await host.createRepository({ owner: 'lister', name: 'a-repo', defaultBranch: 'trunk' });
    const repos = await host.listRepositories({ account: 'lister', externalId: null });
    expect(repos).toEqual([
      { externalId: null, fullName: 'lister/a-repo', defaultBranch: 'trunk', cloneUrl: `file://${join(root, 'lister', 'a-repo.git')}` },
      { externalId: null, fullName: 'lister/b-repo', defaultBranch: 'main', cloneUrl: `file://${join(root, 'lister', 'b-repo.git')}` },
    ]);
    expect(await host.authenticatedCloneUrl({ account: 'lister', externalId: null }, repos[0] ?? { cloneUrl: '' })).toBe(repos[0]?.cloneUrl);
    expect(await host.listRepositories({ account: 'nobody', externalId: null })).toEqual([]);
    expect(await host.listRepositories({ account: '../escape', externalId: null })).toEqual([]);
  });
});

describe('the local source host needs no access token: it is reached on disk', () => {
  test('accessToken is null', async () => {
    expect(await new LocalSourceHost(root).accessToken({ account: 'acme', externalId: null })).toBeNull();
  });
});

describe('a pushed commit changes exactly its files on top of its parent, whatever their paths', () => {
  test('nested paths, a space, a quote, a backslash and non-ASCII text: the tree holds each with its content; the rest is the parent’s', async () => {
    const host = new LocalSourceHost(root);
    const repo = await host.createRepository({ owner: 'pusher', name: 'paths', files: { 'README.md': 'seed\n', 'keep.txt': 'kept\n' } });
    const files = {
      'src/deep/one.ts': 'export const one = 1;\n',
      'with space.md': 'a space\n',
      'quote"d.txt': 'a quote\n',
      'back\\slash.txt': 'a backslash\n',
      'README.md': 'changed: ünïcödé ✓\n',
    };
    const commit = await host.pushCommit('pusher/paths', { branch: 'feature', from: 'main', files, message: 'A change\n\nwith a body' });
    const bare = repo.path;
    const show = (args: string[]): string => execFileSync('git', args, { cwd: bare }).toString();
    expect(show(['rev-parse', 'refs/heads/feature']).trim()).toBe(commit);
    expect(show(['rev-parse', `${commit}^`]).trim()).toBe(show(['rev-parse', 'refs/heads/main']).trim());
    expect(show(['log', '-1', '--format=%B', commit]).trim()).toBe('A change\n\nwith a body');
    expect(show(['log', '-1', '--format=%an <%ae>', commit]).trim()).toBe('Agent Run Service <dev@agent-run.local>');
    const listed = show(['ls-tree', '-r', '-z', '--name-only', commit]).split('\0').filter(Boolean).sort();
    expect(listed).toEqual([...Object.keys(files), 'keep.txt'].sort());
    for (const [path, content] of Object.entries({ ...files, 'keep.txt': 'kept\n' })) {
      expect(show(['cat-file', 'blob', `${commit}:${path}`])).toBe(content);
    }
  });
});

describe('an open pull request’s SHAs are its branches’ tips now, the stored ones for a branch that is gone', () => {
  test('its head branch deleted and a branch below its name made (topic → topic/next): the stored head SHA, never the other branch’s', async () => {
    const host = new LocalSourceHost(root);
    const repo = await host.createRepository({ owner: 'tips', name: 'gone' });
    const head = await host.pushCommit('tips/gone', { branch: 'topic', from: 'main', files: { 'a.txt': 'a\n' }, message: 'topic' });
    const pr = await host.openPullRequest('tips/gone', { title: 'Topic', head: 'topic', base: 'main' });
    expect(pr.headSha).toBe(head);
    execFileSync('git', ['update-ref', '-d', 'refs/heads/topic'], { cwd: repo.path });
    const other = await host.pushCommit('tips/gone', { branch: 'topic/next', from: 'main', files: { 'b.txt': 'b\n' }, message: 'next' });
    expect(other).not.toBe(head);
    const seen = await host.getPullRequest({ installation: { account: 'tips', externalId: null }, fullName: 'tips/gone' }, pr.number);
    expect(seen?.headSha).toBe(head);
    const base = await host.pushCommit('tips/gone', { branch: 'main', from: 'main', files: { 'c.txt': 'c\n' }, message: 'main moves' });
    expect((await host.getPullRequest({ installation: { account: 'tips', externalId: null }, fullName: 'tips/gone' }, pr.number))?.baseSha).toBe(base);
  });
});
