import type { SealedSecret, SecretBox } from './secretBox.js';

/** One sealed value where a store keeps it: `ref` finds it again, `context` is what it was sealed with. */
export interface StoredSeal<Ref> {
  ref: Ref;
  sealed: SealedSecret;
  context: string;
}

/**
 * Writes `to` in place of `from`, only if the stored value is still `from` (a write meanwhile
 * sealed it anew, under the current key: it is left as it is). True when written.
 */
export type ReplaceSeal<Ref> = (ref: Ref, from: SealedSecret, to: SealedSecret) => Promise<boolean>;

export interface ResealReport {
  /** The current key's id: what every value re-sealed is now under. */
  keyId: string;
  /** Values now sealed under the current key. */
  resealed: number;
  /** Values rewritten by their owner while the pass ran (already under the current key). */
  changedMeanwhile: number;
  /** Values no key of the keyring opens: left as they are, and still needing their old key. */
  unopenable: number;
  /** The pass was stopped (shutdown) before it read every value. */
  stopped: boolean;
}

/**
 * Re-seals, under the keyring's current key, every value of `stored` sealed under another (or
 * none), so that after a rotation the previous key can be dropped once nothing needs it. Safe to
 * run on several replicas at once: each write is a compare-and-set on the old sealed value.
 */
export async function resealStale<Ref>(
  box: SecretBox,
  stored: AsyncIterable<StoredSeal<Ref>>,
  replace: ReplaceSeal<Ref>,
  signal?: AbortSignal,
): Promise<ResealReport> {
  const report: ResealReport = { keyId: box.currentKeyId, resealed: 0, changedMeanwhile: 0, unopenable: 0, stopped: false };
  for await (const { ref, sealed, context } of stored) {
    if (signal?.aborted) return { ...report, stopped: true };
    if (!box.needsReseal(sealed)) continue;
    let plaintext: string;
    try {
      plaintext = box.open(sealed, context);
    } catch {
      report.unopenable += 1;
      continue;
    }
    if (await replace(ref, sealed, box.seal(plaintext, context))) report.resealed += 1;
    else report.changedMeanwhile += 1;
  }
  return report;
}

/** Where a pass reports (a service's logger fits). */
export interface ResealLog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface BackgroundReseal {
  /** Settles when the pass has ended (never rejects: a failure is logged). */
  done: Promise<void>;
  /** Stops the pass after the value it is on; resolves when it has ended. */
  stop(): Promise<void>;
}

/**
 * One re-seal pass, started now and left to run beside the service (a start-up is not held for
 * it); its report is one log line, which tells an operator when the previous key may go.
 */
export function resealInBackground(what: string, pass: (signal: AbortSignal) => Promise<ResealReport>, log: ResealLog): BackgroundReseal {
  const stop = new AbortController();
  const done = pass(stop.signal).then(
    (report) => {
      const fields = {
        sealed: what,
        key_id: report.keyId,
        resealed: report.resealed,
        changed_meanwhile: report.changedMeanwhile,
        unopenable: report.unopenable,
        stopped: report.stopped,
      };
      if (report.unopenable > 0)
        log.warn(fields, `re-seal pass over ${what}: ${report.unopenable} open with no key of the keyring; keep the key that sealed them`);
      else if (report.stopped) log.info(fields, `re-seal pass over ${what} stopped by shutdown; the next start goes on`);
      else log.info(fields, `re-seal pass over ${what} done: all under the current key`);
    },
    (error: unknown) => log.warn({ sealed: what, err: error }, `re-seal pass over ${what} failed; the next start tries again`),
  );
  return {
    done,
    async stop() {
      stop.abort();
      await done;
    },
  };
}
