// A `bwrap` first on PATH that fails the way a busy kernel made it fail (its network namespace's
// loopback not set up, nothing of the command run) as many times as it is told to, then is the real one.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const BUSY_KERNEL_WORDS = 'bwrap: loopback: Failed RTM_NEWADDR: No child processes';

export interface FlakyBwrap {
  /** The directory holding the fake `bwrap` (put first on PATH while it is installed). */
  dir: string;
  /** The next `count` starts fail. */
  failNext(count: number): void;
  /** How many times it was started. */
  starts(): number;
  /** PATH as it was; the fake removed. */
  restore(): void;
}

export function installFlakyBwrap(realBwrap: string, failures = 0): FlakyBwrap {
  const dir = mkdtempSync(join(tmpdir(), 'ars-flaky-bwrap-'));
  const calls = join(dir, 'calls');
  const left = join(dir, 'failures-left');
  writeFileSync(calls, '');
  writeFileSync(left, `${failures}\n`);
  writeFileSync(
    join(dir, 'bwrap'),
    [
      '#!/bin/sh',
      `echo x >> '${calls}'`,
      `left=$(cat '${left}')`,
      `if [ "$left" -gt 0 ]; then echo $((left - 1)) > '${left}'; echo '${BUSY_KERNEL_WORDS}' >&2; exit 1; fi`,
      `exec '${realBwrap}' "$@"`,
    ].join('\n'),
  );
  chmodSync(join(dir, 'bwrap'), 0o755);
  // The fake runs as the sandbox user (SANDBOX_UID), as bwrap does: it counts and fails in files of its own.
  chmodSync(dir, 0o755);
  chmodSync(calls, 0o666);
  chmodSync(left, 0o666);
  const path = process.env.PATH;
  process.env.PATH = `${dir}:${path ?? ''}`;
  return {
    dir,
    failNext: (count) => writeFileSync(left, `${count}\n`),
    starts: () => readFileSync(calls, 'utf8').split('\n').filter(Boolean).length,
    restore: () => {
      process.env.PATH = path;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
