import { SideBySide } from './sideBySide.js';

describe('SideBySide: every body starts at start(), each test awaits its own', () => {
  test('bodies registered under different describe blocks run at once, not one after another', async () => {
    const sideBySide = new SideBySide();
    const started: number[] = [];
    const release: Array<() => void> = [];
    const bodies = [0, 1, 2].map((index) =>
      sideBySide.body(async () => {
        started.push(index);
        await new Promise<void>((resolve) => release.push(resolve));
      }),
    );
    expect(started).toEqual([]);
    sideBySide.start();
    expect(started).toEqual([0, 1, 2]);
    for (const resolve of release) resolve();
    await Promise.all(bodies.map((body) => body()));
  });

  test('a body that fails before its test runs fails that test with its own error, and nothing else', async () => {
    const sideBySide = new SideBySide();
    const failing = sideBySide.body(async () => {
      throw new Error('the deadline passed');
    });
    const passing = sideBySide.body(async () => undefined);
    sideBySide.start();
    await new Promise((resolve) => setTimeout(resolve, 10));
    await expect(failing()).rejects.toThrow('the deadline passed');
    await expect(passing()).resolves.toBeUndefined();
  });

  test('a test whose body start() did not reach (registered later) runs it itself, once', async () => {
    const sideBySide = new SideBySide();
    sideBySide.start();
    let runs = 0;
    const body = sideBySide.body(async () => {
      runs += 1;
    });
    await body();
    await body();
    expect(runs).toBe(1);
  });
});
