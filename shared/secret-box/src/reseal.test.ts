import { randomBytes } from 'node:crypto';
import { resealStale, type StoredSeal } from './reseal.js';
import { SecretBox, type SealedSecret } from './secretBox.js';

const keyOf = (id: string) => ({ id, key: randomBytes(32) });

/** An in-memory store: what a Mongo collection is to the services, with its compare-and-set. */
function memoryStore(values: Record<string, { sealed: SealedSecret; context: string }>) {
  return {
    values,
    async *all(): AsyncIterable<StoredSeal<string>> {
      for (const [ref, { sealed, context }] of Object.entries(values)) yield { ref, sealed, context };
    },
    async replace(ref: string, from: SealedSecret, to: SealedSecret): Promise<boolean> {
      const entry = values[ref];
      if (!entry || entry.sealed.iv !== from.iv) return false;
      entry.sealed = to;
      return true;
    },
  };
}

describe('after a rotation every stored value is re-sealed under the current key, so the previous key can be dropped', () => {
  const old = keyOf('2025');
  const next = keyOf('2026');

  test('values under the previous key (or none) are re-sealed; values under the current key are left; the old key is then needless', async () => {
    const before = new SecretBox({ current: old });
    const rotated = new SecretBox({ current: next, previous: [old] });
    const { keyId: _none, ...legacy } = before.seal('legacy', 'c:legacy');
    const current = rotated.seal('current', 'c:current');
    const store = memoryStore({
      a: { sealed: before.seal('alpha', 'c:a'), context: 'c:a' },
      legacy: { sealed: legacy, context: 'c:legacy' },
      current: { sealed: current, context: 'c:current' },
    });
    expect(await resealStale(rotated, store.all(), store.replace)).toEqual({ keyId: '2026', resealed: 2, changedMeanwhile: 0, unopenable: 0, stopped: false });
    expect(store.values.current?.sealed).toBe(current);
    const nextOnly = new SecretBox({ current: next });
    expect(Object.entries(store.values).map(([ref, { sealed, context }]) => [ref, sealed.keyId, nextOnly.open(sealed, context)])).toEqual([
      ['a', '2026', 'alpha'],
      ['legacy', '2026', 'legacy'],
      ['current', '2026', 'current'],
    ]);
  });

  test('a value rewritten meanwhile is not overwritten; a value no key opens is counted and left as it is', async () => {
    const rotated = new SecretBox({ current: next, previous: [old] });
    const stranger = new SecretBox({ current: keyOf('2025') }).seal('lost', 'c:lost');
    const store = memoryStore({
      raced: { sealed: new SecretBox({ current: old }).seal('raced', 'c:raced'), context: 'c:raced' },
      lost: { sealed: stranger, context: 'c:lost' },
    });
    const rewritten = rotated.seal('written by its owner', 'c:raced');
    const racing = async (ref: string, from: SealedSecret, to: SealedSecret) => {
      store.values.raced = { sealed: rewritten, context: 'c:raced' };
      return store.replace(ref, from, to);
    };
    expect(await resealStale(rotated, store.all(), racing)).toEqual({ keyId: '2026', resealed: 0, changedMeanwhile: 1, unopenable: 1, stopped: false });
    expect(store.values.raced?.sealed).toBe(rewritten);
    expect(store.values.lost?.sealed).toBe(stranger);
  });

  test('a stopped pass ends before its next value and says so', async () => {
    const rotated = new SecretBox({ current: next, previous: [old] });
    const store = memoryStore({ a: { sealed: new SecretBox({ current: old }).seal('a', 'c'), context: 'c' } });
    const stop = new AbortController();
    stop.abort();
    expect(await resealStale(rotated, store.all(), store.replace, stop.signal)).toEqual({
      keyId: '2026',
      resealed: 0,
      changedMeanwhile: 0,
      unopenable: 0,
      stopped: true,
    });
  });
});
