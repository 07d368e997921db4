// The start-up probe of the local provider's isolation: a failure that repeats refuses the service, a
// failure that does not repeat (a busy kernel) does not.
import { join } from 'node:path';
import { installFlakyBwrap } from '../../testing/flakyBwrap.js';
import { programPath } from './hostLayout.js';
import { IsolationUnavailable, prepareIsolation } from './localIsolation.js';

// Required, never skipped: setup.sh installs bubblewrap, and the service refuses to start without it.
const foundBwrap = await programPath('bwrap');
if (!foundBwrap) throw new Error('bwrap is not installed (Debian package bubblewrap; deploy/local/setup.sh installs it as root)');
const realBwrap: string = foundBwrap;

describe('the isolation probe: only a failure that repeats means the machine cannot isolate', () => {
  test('a namespace set-up that fails once is tried again and the isolation is prepared', async () => {
    const flaky = installFlakyBwrap(realBwrap, 1);
    try {
      const isolation = await prepareIsolation();
      expect(isolation.bwrap).toBe(join(flaky.dir, 'bwrap'));
      await isolation.close();
    } finally {
      flaky.restore();
    }
  });

  test('a namespace set-up that fails every time refuses, with bwrap’s own words', async () => {
    const flaky = installFlakyBwrap(realBwrap, 1_000);
    try {
      const refusal = prepareIsolation();
      await expect(refusal).rejects.toBeInstanceOf(IsolationUnavailable);
      await expect(refusal).rejects.toThrow('Failed RTM_NEWADDR');
    } finally {
      flaky.restore();
    }
  });
});
