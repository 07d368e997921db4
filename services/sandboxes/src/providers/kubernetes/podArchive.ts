// Snapshots of a Pod's sandbox in the local provider's format (`../tar.ts`): a `.tar.gz` holding
// `repo/` and `home/` as they lie in `/workspace`, dependency folders left out. The archive streams
// over exec (stdout out, stdin in): it is kept on this service's disk, like the local provider's.
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { SNAPSHOT_EXCLUDES } from '../tar.js';
import type { SandboxPod } from './kubernetesPods.js';
import { WORKSPACE } from './podManifest.js';

/** The archive could not be restored; `kind` says which decision code the allocation reports. */
export class RestoreError extends Error {
  constructor(
    message: string,
    readonly kind: 'snapshot_restore_failed' | 'root_directory_missing',
  ) {
    super(message);
  }
}

/**
 * Replaces the cloned tree and HOME with the archive's. `head -c <size>` ends tar's input after the
 * archive even where exec cannot close stdin (the v4 channel protocol).
 */
const RESTORE_SCRIPT = `rm -rf repo home || exit 2
head -c "$1" | tar -xzf - --no-same-owner || exit 2
[ -d repo/.git ] || { echo "it holds no repository" >&2; exit 3; }
[ -d "$2" ] || exit 4
`;

function tail(chunks: Buffer[]): string {
  return Buffer.concat(chunks).toString('utf8').trim().split('\n').slice(-3).join(' ');
}

function closeFile(file: WriteStream): Promise<void> {
  return new Promise((resolve, reject) => file.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

/** `tar -czf - repo home` in `/workspace`, written to the local `file`. */
export async function snapshotPod(pod: SandboxPod, file: string): Promise<{ bytes: number }> {
  const out = createWriteStream(file, { mode: 0o600 });
  const errors: Buffer[] = [];
  let exitCode: number;
  try {
    ({ exitCode } = await pod.exec(['tar', '-czf', '-', ...SNAPSHOT_EXCLUDES.map((name) => `--exclude=${name}`), 'repo', 'home'], {
      cwd: WORKSPACE,
      onStdout: (chunk) => out.write(chunk),
      onStderr: (chunk) => errors.push(chunk),
    }));
  } catch (error) {
    await closeFile(out).catch(() => undefined);
    await rm(file, { force: true });
    throw error;
  }
  await closeFile(out);
  if (exitCode !== 0) {
    await rm(file, { force: true });
    throw new Error(`the snapshot of pod "${pod.name}" failed (tar exited ${exitCode}): ${tail(errors) || 'no output'}`);
  }
  return { bytes: (await stat(file)).size };
}

/** Unpacks a snapshot into the Pod's `/workspace`, then checks the repository and `cwd` are there. */
export async function restorePod(pod: SandboxPod, file: string, cwd: string, rootDirectory: string | null): Promise<void> {
  const size = await stat(file).then(
    (info) => info.size,
    (error: unknown) => {
      throw new RestoreError(`the snapshot could not be restored: ${error instanceof Error ? error.message : String(error)}`, 'snapshot_restore_failed');
    },
  );
  const errors: Buffer[] = [];
  const { exitCode } = await pod.exec(['/bin/sh', '-c', RESTORE_SCRIPT, 'ars-restore', String(size), cwd], {
    cwd: WORKSPACE,
    stdin: createReadStream(file),
    onStderr: (chunk) => errors.push(chunk),
  });
  if (exitCode === 4) throw new RestoreError(`the root directory "${rootDirectory ?? ''}" does not exist in the restored snapshot`, 'root_directory_missing');
  if (exitCode !== 0) throw new RestoreError(`the snapshot could not be restored: ${tail(errors) || `exit ${exitCode}`}`, 'snapshot_restore_failed');
}
