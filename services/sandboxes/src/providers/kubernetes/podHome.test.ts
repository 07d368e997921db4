// What a Pod sends back of HOME is the agent's to forge: only plain relative paths under the folders
// asked for are written, into the local folder given, within the limit. The Pod here is a stand-in
// that prints what a hostile one could (the real round trip: sandboxes.kubernetes.test.ts, conversations).
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { HomeFilesTooLarge } from '../provider.js';
import type { SandboxPod } from './kubernetesPods.js';
import { readPodHome, writePodHome } from './podHome.js';

/** A Pod whose exec prints `lines` (JSON-encoded each) and exits `exitCode`; it records what it was sent. */
function podPrinting(lines: unknown[], exitCode = 0): SandboxPod & { sent: { command: string[]; stdin: unknown }[] } {
  const sent: { command: string[]; stdin: unknown }[] = [];
  const pod = {
    name: 'k8s-test',
    sent,
    exec: async (command: string[], options: { stdin?: unknown; onStdout?: (chunk: Buffer) => void }) => {
      sent.push({ command, stdin: options.stdin });
      options.onStdout?.(Buffer.from(lines.map((line) => `${JSON.stringify(line)}\n`).join('')));
      return { exitCode };
    },
  };
  return pod as unknown as SandboxPod & { sent: typeof sent };
}

describe('readPodHome: only plain relative paths under the roots asked for are written', () => {
  test('a file under the root is written at its path; escapes, absolute paths, other folders and non-text are dropped', async () => {
    const into = await mkdtemp(join(tmpdir(), 'pod-home-'));
    const pod = podPrinting([
      { path: '.claude/projects/-w/t.jsonl', content: 'kept\n' },
      { path: '.claude/projects/../../../etc/x', content: 'escape' },
      { path: '/etc/passwd', content: 'absolute' },
      { path: '.claude/projects//double', content: 'empty segment' },
      { path: '.codex/auth.json', content: 'another folder' },
      { path: '.claude/projects/-w/n.jsonl', content: 42 },
      { path: '.claude/projects/-w/t.jsonl', content: 'a second copy' },
    ]);
    await readPodHome(pod, ['.claude/projects'], into, 1_000);
    expect(readFileSync(join(into, '.claude/projects/-w/t.jsonl'), 'utf8')).toBe('kept\n');
    expect(existsSync(join(into, '.codex'))).toBe(false);
    expect(existsSync(join(into, '.claude/projects/-w/n.jsonl'))).toBe(false);
    expect(existsSync(join(into, '.claude/projects/double'))).toBe(false);
    expect(pod.sent[0]?.command.slice(0, 2)).toEqual(['node', '-e']);
  });

  test('past the limit: HomeFilesTooLarge, whether the Pod says so or sends more than it may', async () => {
    const into = await mkdtemp(join(tmpdir(), 'pod-home-'));
    await expect(readPodHome(podPrinting([{ over: true }]), ['.codex/sessions'], into, 10)).rejects.toBeInstanceOf(HomeFilesTooLarge);
    const big = podPrinting([
      { path: '.codex/sessions/a', content: 'x'.repeat(8) },
      { path: '.codex/sessions/b', content: 'y'.repeat(8) },
    ]);
    await expect(readPodHome(big, ['.codex/sessions'], into, 10)).rejects.toBeInstanceOf(HomeFilesTooLarge);
    const flood = podPrinting([{ path: '.codex/sessions/c', content: 'z'.repeat(200_000) }]);
    await expect(readPodHome(flood, ['.codex/sessions'], await mkdtemp(join(tmpdir(), 'pod-home-')), 10)).rejects.toBeInstanceOf(HomeFilesTooLarge);
  });

  test('a failed exec is an error naming the Pod', async () => {
    await expect(readPodHome(podPrinting([], 1), ['.codex/sessions'], await mkdtemp(join(tmpdir(), 'pod-home-')), 10)).rejects.toThrow(/pod "k8s-test"/);
  });
});

describe('writePodHome: the files go to the Pod as JSON lines on stdin, with their byte count', () => {
  test('one line per file; nothing to write, no exec', async () => {
    const pod = podPrinting([]);
    await writePodHome(pod, [{ path: '.codex/sessions/2026/11/28/rollout-x.jsonl', content: '{"a":"é"}\n' }]);
    const payload = pod.sent[0]?.stdin as Buffer;
    expect(pod.sent[0]?.command.at(-1)).toBe(String(payload.length));
    expect(payload.toString('utf8')).toBe(`${JSON.stringify({ path: '.codex/sessions/2026/11/28/rollout-x.jsonl', content: '{"a":"é"}\n' })}\n`);
    const idle = podPrinting([]);
    await writePodHome(idle, []);
    expect(idle.sent).toEqual([]);
  });
});
