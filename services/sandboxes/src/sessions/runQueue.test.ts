import type { RunRequestedData } from '@ars/bus';
import { RunQueue, type Admission, type QueuedRun } from './runQueue.js';

function run(runId: string, userId: string, at: number): QueuedRun {
  return { runId, userId, request: { runId, userId } as RunRequestedData, queuedAt: new Date(at), reason: 'instance_full' };
}

describe('the run queue starts runs oldest first while there is a slot; a run whose user has no room keeps its place', () => {
  test('arrival order, also for a run added later with an earlier arrival (taken over from another instance)', async () => {
    const queue = new RunQueue();
    queue.add(run('b', 'u1', 2));
    queue.add(run('c', 'u1', 3));
    queue.add(run('a', 'u2', 1));
    const started: string[] = [];
    await queue.pump(
      () => started.length < 2,
      async (r) => {
        started.push(r.runId);
        return 'started';
      },
    );
    expect(started).toEqual(['a', 'b']);
    expect(queue.runIds()).toEqual(['c']);
    expect(queue.get('c')?.reason).toBe('instance_full');
  });

  test('a user without room is passed over (user_full), and the runs after it start', async () => {
    const queue = new RunQueue();
    for (const [id, user, at] of [
      ['a', 'full', 1],
      ['b', 'full', 2],
      ['c', 'other', 3],
    ] as const)
      queue.add(run(id, user, at));
    const tried: string[] = [];
    await queue.pump(
      () => true,
      async (r): Promise<Admission> => {
        tried.push(r.runId);
        return r.userId === 'full' ? 'user_full' : 'started';
      },
    );
    expect(tried).toEqual(['a', 'c']);
    expect(queue.runIds()).toEqual(['a', 'b']);
    expect(queue.get('b')?.reason).toBe('user_full');
  });

  test('a pump asked for during a pass gets a pass of its own: a run added meanwhile is not left waiting', async () => {
    const queue = new RunQueue();
    queue.add(run('a', 'u', 1));
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const started: string[] = [];
    const admit = async (r: QueuedRun): Promise<Admission> => {
      if (r.runId === 'a') await gate;
      started.push(r.runId);
      return 'started';
    };
    const first = queue.pump(() => true, admit);
    queue.add(run('b', 'u', 2));
    const second = queue.pump(() => true, admit);
    release();
    await Promise.all([first, second]);
    expect(started).toEqual(['a', 'b']);
    expect(queue.size).toBe(0);
  });

  test('a closed queue starts nothing', async () => {
    const queue = new RunQueue();
    queue.add(run('a', 'u', 1));
    queue.close();
    await queue.pump(
      () => true,
      async () => 'started',
    );
    expect(queue.runIds()).toEqual(['a']);
  });
});
