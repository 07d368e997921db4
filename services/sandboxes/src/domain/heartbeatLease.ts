/**
 * Where "lost" starts, as a periodic pass can vouch for it: another instance's heartbeat older than
 * the returned moment means that instance stopped. Measured from just after this process's previous
 * pass (one interval after it began), not from now: a process that was stalled (a long GC pause, a
 * starved CPU, the suspended VM of a laptop) saw no heartbeats meanwhile, and cannot tell a peer
 * that stopped from one whose writes it was too stalled to see (in one process, as two instances
 * are in tests, that peer was stalled too). Awake, the previous pass began one interval ago and this
 * is `now - lostAfterMs`; after a stall, the next pass judges the stall's time.
 */
export function lostBefore(input: { now: number; previousPassAt: number | undefined; heartbeatMs: number; lostAfterMs: number }): Date {
  const vouchedUntil = input.previousPassAt === undefined ? input.now : Math.min(input.now, input.previousPassAt + input.heartbeatMs);
  return new Date(vouchedUntil - input.lostAfterMs);
}

/** A pass's view of `lostBefore`: each call is one pass, remembered for the next. */
export function lostCutoffs(options: { heartbeatMs: number; lostAfterMs: number }, clock: () => number = Date.now): () => Date {
  let previousPassAt: number | undefined;
  return () => {
    const now = clock();
    const cutoff = lostBefore({ now, previousPassAt, ...options });
    previousPassAt = now;
    return cutoff;
  };
}
