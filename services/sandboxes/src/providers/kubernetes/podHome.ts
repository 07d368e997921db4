// HOME's files between a Pod and this service, for a conversation's thread (the thread-state code
// works on local folders). Files travel as JSON lines `{"path": …, "content": …}`, printed and read by
// node in the Pod (the sandbox image has node; tar's output could not be taken as safely): the Pod
// is the agent's, so what comes back is checked here — plain relative paths under the folders asked
// for, regular files written by this process into a fresh folder, at most the limit given.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { HomeFilesTooLarge, type HomeFile } from '../provider.js';
import type { SandboxPod } from './kubernetesPods.js';
import { HOME_DIR } from './podManifest.js';

/** Prints each regular file under the roots (argv after the limit) as a JSON line; `{"over":true}` past the limit. */
const READ_SCRIPT = `
const fs = require('fs');
const [limit, ...roots] = process.argv.slice(1);
let total = 0;
const walk = (rel) => {
  let info;
  try { info = fs.lstatSync(rel); } catch { return; }
  if (info.isDirectory()) { for (const name of fs.readdirSync(rel).sort()) walk(rel + '/' + name); return; }
  if (!info.isFile()) return;
  const content = fs.readFileSync(rel, 'utf8');
  total += Buffer.byteLength(content);
  if (total > Number(limit)) { process.stdout.write(JSON.stringify({ over: true }) + '\\n'); process.exit(0); }
  process.stdout.write(JSON.stringify({ path: rel, content }) + '\\n');
};
for (const root of roots) walk(root);
`;

/** Reads exactly argv[1] bytes of JSON lines from stdin and writes each file (under the working directory, HOME). */
const WRITE_SCRIPT = `
const fs = require('fs'), path = require('path');
const size = Number(process.argv[1]);
const chunks = [];
let got = 0;
process.stdin.on('data', (chunk) => { chunks.push(chunk); got += chunk.length; if (got >= size) done(); });
process.stdin.on('end', () => done());
let finished = false;
function done() {
  if (finished) return;
  finished = true;
  const text = Buffer.concat(chunks).subarray(0, size).toString('utf8');
  for (const line of text.split('\\n')) {
    if (!line) continue;
    const file = JSON.parse(line);
    fs.mkdirSync(path.dirname(file.path), { recursive: true });
    fs.writeFileSync(file.path, file.content);
  }
  process.exit(0);
}
`;

/** A path under one of `roots`: relative, `/`-separated, no empty, `.` or `..` segment. */
function safePath(path: unknown, roots: readonly string[]): path is string {
  if (typeof path !== 'string' || path.includes('\\') || path.includes('\0')) return false;
  if (path.split('/').some((segment) => segment === '' || segment === '.' || segment === '..')) return false;
  return roots.some((root) => path.startsWith(`${root}/`));
}

function stderrTail(chunks: Buffer[]): string {
  return Buffer.concat(chunks).toString('utf8').trim().split('\n').slice(-3).join(' ');
}

/** Copies the regular files under HOME's `roots` into the local folder `into` (HomeFiles.read). */
export async function readPodHome(pod: SandboxPod, roots: readonly string[], into: string, limitBytes: number): Promise<void> {
  const out: Buffer[] = [];
  const errors: Buffer[] = [];
  let received = 0;
  // JSON doubles some characters: the output is allowed twice the limit, and a little for the framing.
  const outputLimit = 2 * limitBytes + 65_536;
  const { exitCode } = await pod.exec(['node', '-e', READ_SCRIPT, String(limitBytes), ...roots], {
    cwd: HOME_DIR,
    onStdout: (chunk) => {
      received += chunk.length;
      if (received <= outputLimit) out.push(chunk);
    },
    onStderr: (chunk) => errors.push(chunk),
  });
  if (received > outputLimit) throw new HomeFilesTooLarge(`HOME's files under ${roots.join(', ')} are over ${limitBytes} bytes`);
  if (exitCode !== 0) throw new Error(`HOME's files could not be read from pod "${pod.name}" (exit ${exitCode}): ${stderrTail(errors) || 'no output'}`);
  let total = 0;
  for (const line of Buffer.concat(out).toString('utf8').split('\n')) {
    if (line === '') continue;
    const file = JSON.parse(line) as { over?: unknown; path?: unknown; content?: unknown };
    if (file.over === true) throw new HomeFilesTooLarge(`HOME's files under ${roots.join(', ')} are over ${limitBytes} bytes`);
    if (!safePath(file.path, roots) || typeof file.content !== 'string') continue;
    total += Buffer.byteLength(file.content);
    if (total > limitBytes) throw new HomeFilesTooLarge(`HOME's files under ${roots.join(', ')} are over ${limitBytes} bytes`);
    await writeNewFile(join(into, ...file.path.split('/')), file.content);
  }
}

/** Writes a file that is not there yet; a second file of one path (or one under a file) is the Pod's doing: the first stands. */
async function writeNewFile(target: string, content: string): Promise<void> {
  try {
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content, { flag: 'wx' });
  } catch (error) {
    const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
    if (code !== 'EEXIST' && code !== 'ENOTDIR') throw error;
  }
}

/** Writes `files` under the Pod's HOME (HomeFiles.write). */
export async function writePodHome(pod: SandboxPod, files: readonly HomeFile[]): Promise<void> {
  if (files.length === 0) return;
  const payload = Buffer.from(files.map((file) => `${JSON.stringify({ path: file.path, content: file.content })}\n`).join(''), 'utf8');
  const errors: Buffer[] = [];
  const { exitCode } = await pod.exec(['node', '-e', WRITE_SCRIPT, String(payload.length)], {
    cwd: HOME_DIR,
    stdin: payload,
    onStderr: (chunk) => errors.push(chunk),
  });
  if (exitCode !== 0) throw new Error(`HOME's files could not be written in pod "${pod.name}" (exit ${exitCode}): ${stderrTail(errors) || 'no output'}`);
}
