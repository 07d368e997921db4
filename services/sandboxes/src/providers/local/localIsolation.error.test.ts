// The start-up probe of the local provider's isolation: a failure that repeats refuses the service, a
// failure that does not repeat (a busy kernel) does not.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { programPath } from './hostLayout.js';
import { IsolationUnavailable, prepareIsolation } from './localIsolation.js';

const realBwrap = await programPath('bwrap');
const withBwrap = realBwrap && (await programPath('slirp4netns')) ? describe : describe.skip;

/** A `bwrap` first on PATH that fails its first `failures` calls the way a busy kernel made it fail, then is the real one. */
function flakyBwrap(failures: number): { dir: string; restore: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'ars-flaky-bwrap-'));
  const counter = join(dir, 'calls');
  writeFileSync(counter, '');
  writeFileSync(
    join(dir, 'bwrap'),
    [
      '#!/bin/sh',
      `echo x >> ${counter}`,
      `if [ "$(wc -l < ${counter})" -le ${failures} ]; then echo 'bwrap: loopback: Failed RTM_NEWADDR: No child processes' >&2; exit 1; fi`,
      `exec ${realBwrap} "$@"`,
    ].join('\n'),
  );
  chmodSync(join(dir, 'bwrap'), 0o755);
  const path = process.env.PATH;
  process.env.PATH = `${dir}:${path ?? ''}`;
  return {
    dir,
    restore: () => {
      process.env.PATH = path;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

withBwrap('the isolation probe: only a failure that repeats means the machine cannot isolate', () => {
  test('a namespace set-up that fails once is tried again and the isolation is prepared', async () => {
    const flaky = flakyBwrap(1);
    try {
      const isolation = await prepareIsolation();
      expect(isolation.bwrap).toBe(join(flaky.dir, 'bwrap'));
      await isolation.close();
    } finally {
      flaky.restore();
    }
  });

  test('a namespace set-up that fails every time refuses, with bwrap’s own words', async () => {
    const flaky = flakyBwrap(1_000);
    try {
      const refusal = prepareIsolation();
      await expect(refusal).rejects.toBeInstanceOf(IsolationUnavailable);
      await expect(refusal).rejects.toThrow('Failed RTM_NEWADDR');
    } finally {
      flaky.restore();
    }
  });
});
