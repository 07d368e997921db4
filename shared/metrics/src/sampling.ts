/**
 * A read made at scrape time (consumer lag from Kafka, live sandboxes from MongoDB), made at most
 * once per `minIntervalMs`: scrapes in between (several Prometheus replicas, a dashboard refresh)
 * get the last result, and concurrent scrapes share one read in flight. A read failing or slower
 * than `timeoutMs` leaves the last result standing (the scrape never fails or hangs for it) and is
 * reported to `onError`.
 */
export function sampledEvery<T>(
  read: () => Promise<T>,
  options: { minIntervalMs: number; timeoutMs?: number; onError?: (error: unknown) => void; now?: () => number },
): () => Promise<T | undefined> {
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? 2_000;
  let last: T | undefined;
  let lastAt = Number.NEGATIVE_INFINITY;
  let inFlight: Promise<T | undefined> | undefined;
  return () => {
    if (now() - lastAt < options.minIntervalMs) return Promise.resolve(last);
    inFlight ??= (async () => {
      let timer: NodeJS.Timeout | undefined;
      try {
        const deadline = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
          timer.unref();
        });
        last = await Promise.race([read(), deadline]);
      } catch (error) {
        options.onError?.(error);
      } finally {
        clearTimeout(timer);
        // A failed read waits its interval too: a broker that is away is not asked at every scrape.
        lastAt = now();
        inFlight = undefined;
      }
      return last;
    })();
    return inFlight;
  };
}
