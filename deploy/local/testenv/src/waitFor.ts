/** What a check answers while the condition does not hold yet. */
export type NotYet = undefined | null | false;

export interface WaitOptions {
  /** How long to keep asking (default 30 s: suites share a busy machine). */
  timeoutMs?: number;
  /** Pause between two asks (default 50 ms). */
  intervalMs?: number;
  /** Treat a check that throws as "not yet" (a process restarting, a connection refused). */
  ignoreErrors?: boolean;
}

/**
 * The one way a test waits for a condition: asks `check` until it answers something other than
 * undefined, null or false, and returns that. Past the deadline it throws naming `what` was awaited,
 * so a failing test says what never happened instead of hanging until jest's own timeout. `what`
 * may be a function, asked only then, to tell what was last seen.
 */
export async function waitFor<T>(what: string | (() => string), check: () => T | NotYet | Promise<T | NotYet>, options: number | WaitOptions = {}): Promise<T> {
  const { timeoutMs = 30_000, intervalMs = 50, ignoreErrors = false } = typeof options === 'number' ? { timeoutMs: options } : options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await askOnce(check, ignoreErrors);
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

async function askOnce<T>(check: () => T | NotYet | Promise<T | NotYet>, ignoreErrors: boolean): Promise<T | NotYet> {
  if (!ignoreErrors) return check();
  try {
    return await check();
  } catch {
    return undefined;
  }
}
