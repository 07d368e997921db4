// Test bodies of one file that wait side by side across its describe blocks. jest runs a
// `test.concurrent` only beside the other concurrent tests of its own block, so a file of several
// rules whose tests each wait on real deadlines (a watchdog's start deadline, a queue's renewals)
// waits once per block, one block after another. Each body registered here starts when the file's
// beforeAll calls `start()` — everything it needs is up — and its test awaits it: the file waits
// about as long as its longest test, and a failure is still its own test's, with its own message.

export type TestBody = () => Promise<void>;

export class SideBySide {
  private readonly runs: Array<{ body: TestBody; run?: Promise<void> }> = [];
  private started = false;

  /** The test function for `test(name, …)`: it awaits `body`, started by `start()` (or by the test itself, when started later). */
  body(body: TestBody): TestBody {
    const entry: { body: TestBody; run?: Promise<void> } = { body };
    this.runs.push(entry);
    return () => (entry.run ??= body());
  }

  /** Starts every body registered so far; call it last in the file's beforeAll. */
  start(): void {
    if (this.started) return;
    this.started = true;
    for (const entry of this.runs) {
      entry.run ??= entry.body();
      // Its test reports the failure; until that test runs, it is not an unhandled rejection.
      entry.run.catch(() => undefined);
    }
  }
}
