// The start-up probe of the local provider's isolation: a failure that repeats refuses the service, a
// failure that does not repeat (a busy kernel) does not.
import { join } from 'node:path';
import { installFlakyBwrap } from '../../testing/flakyBwrap.js';
import { programPath } from './hostLayout.js';
import { IsolationUnavailable, prepareIsolation } from './localIsolation.js';

const realBwrap = await programPath('bwrap');
const withBwrap = realBwrap ? describe : describe.skip;

withBwrap('the isolation probe: only a failure that repeats means the machine cannot isolate', () => {
  test('a namespace set-up that fails once is tried again and the isolation is prepared', async () => {
    const flaky = installFlakyBwrap(realBwrap as string, 1);
    try {
      const isolation = await prepareIsolation();
      expect(isolation.bwrap).toBe(join(flaky.dir, 'bwrap'));
      await isolation.close();
    } finally {
      flaky.restore();
    }
  });

  test('a namespace set-up that fails every time refuses, with bwrap’s own words', async () => {
    const flaky = installFlakyBwrap(realBwrap as string, 1_000);
    try {
      const refusal = prepareIsolation();
      await expect(refusal).rejects.toBeInstanceOf(IsolationUnavailable);
      await expect(refusal).rejects.toThrow('Failed RTM_NEWADDR');
    } finally {
      flaky.restore();
    }
  });
});
