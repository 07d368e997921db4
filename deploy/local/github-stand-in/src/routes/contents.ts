// A repository's files: `GET /repos/{o}/{r}/contents/{path}?ref=`, served from the commits' trees
// given by `setCommitFiles`.
import { createHash } from 'node:crypto';
import { githubError, notFound, type Answer } from '../httpAnswer.js';
import { reachableRepository, type Route, type RouteContext } from '../route.js';
import { fullNameOf, type HostedRepository } from '../state.js';

/** GitHub's contents JSON carries a file's content up to 1 MB; past that `content` is empty and `encoding` is `none`. */
const MAX_CONTENT_JSON = 1024 * 1024;

/** The commit a ref names: a SHA given files, a pull request's head branch (the newest such), its base branch, or a known SHA; else null. */
function commitOfRef(hosted: HostedRepository, ref: string): string | null {
  if (hosted.trees.has(ref)) return ref;
  const newestFirst = [...hosted.pulls].sort((a, b) => b.number - a.number);
  const branch = newestFirst.find((p) => p.head.ref === ref)?.head.sha ?? newestFirst.find((p) => p.base.ref === ref)?.base.sha;
  return branch ?? (hosted.commits.has(ref) ? ref : null);
}

/** A `contents` entry as GitHub answers it: a file asked for alone carries its base64 content; a directory's array lists entries without it. */
function contentJson(baseUrl: string, hosted: HostedRepository, ref: string, path: string, type: 'file' | 'dir', text: string | undefined, alone: boolean) {
  const fullName = fullNameOf(hosted);
  const bytes = Buffer.from(text ?? '', 'utf8');
  const sha =
    type === 'file'
      ? createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex')
      : createHash('sha1').update(`tree ${ref}:${path}`).digest('hex');
  const self = `${baseUrl}/repos/${fullName}/contents/${path}?ref=${encodeURIComponent(ref)}`;
  const git = `${baseUrl}/repos/${fullName}/git/${type === 'file' ? 'blobs' : 'trees'}/${sha}`;
  const html = `https://github.com/${fullName}/${type === 'file' ? 'blob' : 'tree'}/${ref}/${path}`;
  const entry = {
    type,
    size: type === 'file' ? bytes.length : 0,
    name: path.slice(path.lastIndexOf('/') + 1),
    path,
    sha,
    url: self,
    git_url: git,
    html_url: html,
    download_url: type === 'file' ? `https://raw.githubusercontent.com/${fullName}/${ref}/${path}` : null,
    _links: { self, git, html },
  };
  if (!alone || type !== 'file') return entry;
  // GitHub wraps the base64 at 60 characters, each line ending in a newline.
  const content = bytes.length > MAX_CONTENT_JSON ? '' : (bytes.toString('base64').match(/.{1,60}/g) ?? []).map((line) => `${line}\n`).join('');
  return { ...entry, content, encoding: bytes.length > MAX_CONTENT_JSON ? 'none' : 'base64' };
}

/** A file (with its content), or a directory (no path: the root) as the array of its entries. */
async function getContents(params: string[], context: RouteContext): Promise<Answer> {
  const hosted = reachableRepository(params, context);
  const ref = context.url.searchParams.get('ref') ?? hosted.repo.defaultBranch;
  const sha = commitOfRef(hosted, ref);
  if (sha === null) throw githubError(404, `No commit found for the ref ${ref}`);
  const tree = hosted.trees.get(sha) ?? new Map<string, string>();
  const path = (params[3] ?? '').replace(/\/+$/, '');
  const text = tree.get(path);
  const { baseUrl } = context.state;
  if (text !== undefined) return { status: 200, body: contentJson(baseUrl, hosted, ref, path, 'file', text, true) };
  const prefix = path === '' ? '' : `${path}/`;
  const children = new Map<string, 'file' | 'dir'>();
  for (const filePath of tree.keys()) {
    if (!filePath.startsWith(prefix)) continue;
    const [name = '', ...deeper] = filePath.slice(prefix.length).split('/');
    children.set(name, deeper.length > 0 ? 'dir' : 'file');
  }
  if (children.size === 0 && path !== '') throw notFound();
  const entries = [...children].sort(([a], [b]) => (a < b ? -1 : 1));
  return {
    status: 200,
    body: entries.map(([name, type]) =>
      contentJson(baseUrl, hosted, ref, `${prefix}${name}`, type, type === 'file' ? tree.get(`${prefix}${name}`) : undefined, false),
    ),
  };
}

export const contentRoutes: Route[] = [['GET', /^\/repos\/([^/]+)\/([^/]+)\/contents(?:\/(.*))?$/, getContents]];
