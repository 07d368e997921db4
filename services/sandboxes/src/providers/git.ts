// The git CLI, run with an environment of its own (never the service's) and errors without credentials.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { redactSecrets } from '@ars/sanitize';

export class GitError extends Error {
  constructor(
    readonly args: string,
    readonly stderr: string,
  ) {
    super(stderr.trim().split('\n').filter(Boolean).slice(-3).join(' ') || 'git failed');
  }
}

export interface GitOptions {
  cwd?: string;
  signal?: AbortSignal;
  /** Redacted from error texts as well (a URL given on the command line). */
  secrets?: string[];
  timeoutMs?: number;
}

let globalConfig: string | undefined;

/**
 * The one global setting of the service's git: the working trees belong to the sandbox user, and
 * git refuses a repository another user owns ("dubious ownership"), also to the upload-pack a local
 * fetch runs (which sees no GIT_CONFIG_COUNT or -c settings, only the global file).
 */
function trustingGlobalConfig(): string {
  if (globalConfig === undefined) {
    // In a folder of its own with an unguessable name: a predictable path in the shared /tmp could be planted first.
    const folder = mkdtempSync(join(tmpdir(), 'ars-sandboxes-git-'));
    const file = join(folder, 'gitconfig');
    writeFileSync(file, '[safe]\n\tdirectory = *\n', { mode: 0o644, flag: 'wx' });
    globalConfig = file;
    // Gone with the process: one folder per process would otherwise pile up in /tmp.
    process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
  }
  return globalConfig;
}

/** The environment of every git command: no service secrets, no prompts, no system config, a global config of one setting. */
export function gitEnvironment(): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: '/nonexistent',
    LANG: 'C.UTF-8',
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: trustingGlobalConfig(),
    GIT_AUTHOR_NAME: 'Agent Run Service',
    GIT_AUTHOR_EMAIL: 'agent@ars.local',
    GIT_COMMITTER_NAME: 'Agent Run Service',
    GIT_COMMITTER_EMAIL: 'agent@ars.local',
  };
}

/** Runs `git <args>`; resolves with stdout, rejects with a GitError whose message is git's (redacted) stderr tail. */
export function git(args: string[], options: GitOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      args,
      { cwd: options.cwd, env: gitEnvironment(), signal: options.signal, timeout: options.timeoutMs ?? 600_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (!error) {
          resolve(stdout);
          return;
        }
        let text = redactSecrets(`${stderr}` || error.message);
        for (const secret of options.secrets ?? []) if (secret) text = text.split(secret).join('***');
        const shown = redactSecrets(args.map((a) => ((options.secrets ?? []).includes(a) ? '***' : a)).join(' '));
        reject(new GitError(shown, text));
      },
    );
  });
}

/** True when `ref` names an object in the repository. */
export async function refExists(cwd: string, ref: string, signal?: AbortSignal): Promise<boolean> {
  try {
    await git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd, signal });
    return true;
  } catch (error) {
    if (signal?.aborted) throw error;
    return false;
  }
}

/**
 * Pushes `source`'s HEAD (a repository or a bundle) to `branch` at `pushUrl` from a clean bare
 * repository made in `scratchDir`: the sandbox's git config (hooks, url rewrites) is the agent's to
 * change, and the URL (it may carry a token) goes nowhere else.
 */
export async function pushFromCleanRepository(source: string, branch: string, pushUrl: string, scratchDir: string): Promise<void> {
  const clean = await mkdtemp(join(scratchDir, '.push-'));
  try {
    const ref = `refs/heads/${branch}`;
    await git(['init', '--quiet', '--bare', clean]);
    await git(['fetch', '--quiet', '--no-tags', source, `+HEAD:${ref}`], { cwd: clean });
    await git(['push', '--quiet', '--', pushUrl, `${ref}:${ref}`], { cwd: clean, secrets: [pushUrl] });
  } finally {
    await rm(clean, { recursive: true, force: true });
  }
}
