// The warm pool's bookkeeping (SANDBOX_WARM_POOL), with preparations the test controls: how many
// are made, when, what happens to a failed one and to the ones never taken.
import { PreparedSandboxes, type PreparedSandbox } from './preparedSandboxes.js';

interface Harness {
  pool: PreparedSandboxes;
  prepared: string[];
  discarded: string[];
  errors: unknown[];
  /** Makes the next preparations fail. */
  failing: { value: boolean };
}

function poolOf(size: number): Harness {
  const prepared: string[] = [];
  const discarded: string[] = [];
  const errors: unknown[] = [];
  const failing = { value: false };
  const pool = new PreparedSandboxes({
    size,
    prepare: async (): Promise<PreparedSandbox> => {
      await Promise.resolve();
      if (failing.value) throw new Error('no space left on the host');
      const sandboxId = `local-${prepared.length}`;
      prepared.push(sandboxId);
      return { sandboxId, dir: `/sandboxes/${sandboxId}` };
    },
    discard: async (sandbox) => {
      await Promise.resolve();
      discarded.push(sandbox.sandboxId);
    },
    onError: (error) => errors.push(error),
  });
  return { pool, prepared, discarded, errors, failing };
}

describe('the warm pool never holds more prepared sandboxes than its size, and hands each one out once', () => {
  test('size 2: two are made after the first take, two takes get two different ones, a third finds none', async () => {
    const { pool, prepared } = poolOf(2);
    expect(pool.take()).toBeNull();
    await pool.whenFilled();
    expect(prepared).toEqual(['local-0', 'local-1']);
    const first = pool.take();
    const second = pool.take();
    expect([first?.sandboxId, second?.sandboxId]).toEqual(['local-0', 'local-1']);
    expect(pool.take()).toBeNull();
    await pool.whenFilled();
    expect(pool.readyCount).toBeLessThanOrEqual(2);
    await pool.close();
  });

  test('size 0: nothing is ever prepared', async () => {
    const { pool, prepared } = poolOf(0);
    expect(pool.take()).toBeNull();
    pool.released();
    await pool.whenFilled();
    expect(prepared).toEqual([]);
    await pool.close();
  });

  test('a size that is not a whole number of at least 0 is refused', () => {
    expect(() => poolOf(-1)).toThrow('size must be an integer of at least 0, not -1');
    expect(() => poolOf(1.5)).toThrow('size must be an integer of at least 0, not 1.5');
  });
});

describe('the warm pool is refilled when a sandbox is released, not when a run takes one', () => {
  test('a take that finds one prepares nothing; a release brings the pool back to its size', async () => {
    const { pool, prepared } = poolOf(2);
    pool.take();
    await pool.whenFilled();
    pool.take();
    await pool.whenFilled();
    expect(prepared).toHaveLength(2);
    expect(pool.readyCount).toBe(1);
    pool.released();
    await pool.whenFilled();
    expect(prepared).toHaveLength(3);
    expect(pool.readyCount).toBe(2);
    await pool.close();
  });
});

describe('a preparation that failed is not tried again until the next take or release', () => {
  test('the failure is reported once per attempt, with no loop; the next take after the cause is gone fills the pool', async () => {
    const { pool, prepared, errors, failing } = poolOf(2);
    failing.value = true;
    expect(pool.take()).toBeNull();
    await pool.whenFilled();
    expect(errors.map((error) => (error as Error).message)).toEqual(['no space left on the host', 'no space left on the host']);
    expect(pool.readyCount).toBe(0);
    failing.value = false;
    expect(pool.take()).toBeNull();
    await pool.whenFilled();
    expect(prepared).toHaveLength(2);
    expect(errors).toHaveLength(2);
    await pool.close();
  });
});

describe('closing the warm pool releases every sandbox never taken, one still being prepared included', () => {
  test('ready and in-progress ones are discarded; a taken one is not; a closed pool hands out none and prepares none', async () => {
    const { pool, prepared, discarded } = poolOf(2);
    pool.take();
    await pool.whenFilled();
    const taken = pool.take();
    // One being prepared while the pool closes.
    pool.released();
    await pool.close();
    expect(prepared).toHaveLength(3);
    expect(discarded.sort()).toEqual(prepared.filter((id) => id !== taken?.sandboxId).sort());
    expect(pool.take()).toBeNull();
    pool.released();
    await pool.whenFilled();
    expect(prepared).toHaveLength(3);
  });
});
