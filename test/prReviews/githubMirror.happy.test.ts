// The support's mirrored GitHub repository on its own (no stack): a local bare repository served by
// the GitHub stand-in with its file:// URL as clone_url, a pull request opened from a branch, read
// back through the GitHub App source host as pr-review reads it, then a push kept in step.
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGitHubStandIn, type GitHubStandIn } from '@ars/github-stand-in';
import { GitHubAppSourceHost, type RepositoryRef } from '@ars/source-host';
import { mirroredRepo, type MirroredRepo } from '../support/githubPullRequests.js';

const APP_ID = '6060';
const INSTALLATION = 21;
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const privatePem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
const APP_JS = 'line1\nline2\nline3\n';
const APP_JS_CHANGED = 'line1\nLINE2\nline3\nline4\n';
const NEW_JS = 'export const x = 1;\n';

let dir: string;
let github: GitHubStandIn;
let repo: MirroredRepo;
let host: GitHubAppSourceHost;
const ref: RepositoryRef = { installation: { account: 'acme', externalId: INSTALLATION }, fullName: 'acme/shop' };
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ars-github-mirror-'));
  // The installation already has a repository: the mirrored one is added beside it.
  github = await startGitHubStandIn({ appId: APP_ID, publicKey, installations: { [INSTALLATION]: [{ owner: 'acme', name: 'other', defaultBranch: 'main' }] } });
  repo = await mirroredRepo(github, { dir, owner: 'acme', name: 'shop', installationId: INSTALLATION, files: { 'README.md': '# shop\n', 'app.js': APP_JS } });
  host = new GitHubAppSourceHost({ appId: APP_ID, privateKey: privatePem, apiUrl: github.url });
});
afterAll(async () => {
  await github.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a mirrored repository: the stand-in answers its file:// URL as clone_url, and a pull request opened from a branch reads back as git has it', () => {
  let number: number;
  let headSha: string;

  test('listed beside the installation’s other repository with its file:// clone URL, which the App hands back unchanged and git clones', async () => {
    expect(repo.fullName).toBe('acme/shop');
    expect(repo.cloneUrl).toBe(`file://${join(dir, 'acme', 'shop.git')}`);
    expect(await host.listRepositories(ref.installation)).toEqual([
      { externalId: expect.any(Number), fullName: 'acme/other', defaultBranch: 'main', cloneUrl: 'https://github.com/acme/other.git' },
      { externalId: expect.any(Number), fullName: 'acme/shop', defaultBranch: 'main', cloneUrl: repo.cloneUrl },
    ]);
    expect(await host.authenticatedCloneUrl(ref.installation, { cloneUrl: repo.cloneUrl })).toBe(repo.cloneUrl);
  });

  test('a branch with two changed files: head and base SHAs are git’s, the files and patches are the branch’s, contents at the head and base', async () => {
    repo.git('checkout', '--quiet', '-b', 'feature');
    headSha = repo.commitAndPush({ 'app.js': APP_JS_CHANGED, 'src/new.js': NEW_JS }, 'Change app.js, add src/new.js');
    const baseSha = repo.git('rev-parse', 'origin/main');
    number = await repo.openPullRequest('feature', 'Two files');

    expect(await host.getPullRequest(ref, number)).toEqual({
      number,
      state: 'open',
      merged: false,
      title: 'Two files',
      headRef: 'feature',
      headSha,
      baseRef: 'main',
      baseSha,
      url: `https://github.com/acme/shop/pull/${number}`,
    });
    expect(await host.listPullRequestFiles(ref, number)).toEqual([
      { path: 'app.js', status: 'modified', additions: 2, deletions: 1, patch: '@@ -1,3 +1,4 @@\n line1\n-line2\n+LINE2\n line3\n+line4' },
      { path: 'src/new.js', status: 'added', additions: 1, deletions: 0, patch: '@@ -0,0 +1 @@\n+export const x = 1;' },
    ]);
    expect(await host.fileContent(ref, headSha, 'src/new.js')).toBe(NEW_JS);
    expect(await host.fileContent(ref, headSha, 'app.js')).toBe(APP_JS_CHANGED);
    expect(await host.fileContent(ref, headSha, 'README.md')).toBe('# shop\n');
    expect(await host.fileContent(ref, 'feature', 'app.js')).toBe(APP_JS_CHANGED);
    expect(await host.fileContent(ref, baseSha, 'app.js')).toBe(APP_JS);
    expect(await host.fileContent(ref, baseSha, 'src/new.js')).toBeNull();
  });

  test('the clone URL the App answers clones the repository with the pull request’s head', async () => {
    const cloneUrl = await host.authenticatedCloneUrl(ref.installation, { cloneUrl: repo.cloneUrl });
    const clone = join(dir, 'sandbox-clone');
    execFileSync('git', ['clone', '--quiet', '--branch', 'feature', cloneUrl, clone], { stdio: 'pipe' });
    expect(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: clone }).toString().trim()).toBe(headSha);
    expect(readFileSync(join(clone, 'src', 'new.js'), 'utf8')).toBe(NEW_JS);
  });

  test('a push to the branch then syncHead: the head SHA, files and contents move to the new commit; the old head is still a commit', async () => {
    const pushed = repo.commitAndPush({ 'app.js': `${APP_JS_CHANGED}line5\n` }, 'Add line5');
    expect(pushed).not.toBe(headSha);
    expect(await repo.syncHead(number)).toBe(pushed);
    expect((await host.getPullRequest(ref, number))?.headSha).toBe(pushed);
    expect((await host.listPullRequestFiles(ref, number)).map((f) => [f.path, f.additions, f.deletions])).toEqual([
      ['app.js', 3, 1],
      ['src/new.js', 1, 0],
    ]);
    expect(await host.fileContent(ref, pushed, 'app.js')).toBe(`${APP_JS_CHANGED}line5\n`);
    expect(await host.fileContent(ref, 'feature', 'app.js')).toBe(`${APP_JS_CHANGED}line5\n`);
    expect(await host.fileContent(ref, headSha, 'app.js')).toBe(APP_JS_CHANGED);
  });
});
