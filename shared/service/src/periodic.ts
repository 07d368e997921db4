/** A pass run now and then every `intervalMs`, never two at once; a failing pass is reported and the next one runs. */
export interface PeriodicPass {
  /** One pass now (after a running one). */
  runOnce(): Promise<void>;
  /** No more passes; resolves after the running one. */
  stop(): Promise<void>;
}

export function startPeriodicPass(pass: () => Promise<void>, intervalMs: number, onError: (error: unknown) => void): PeriodicPass {
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const runOnce = (): Promise<void> => {
    running = running.then(pass).catch(onError);
    return running;
  };
  void runOnce();
  const timer = setInterval(() => {
    if (!stopped) void runOnce();
  }, intervalMs);
  timer.unref();
  return {
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
