// A sandbox's limits on the service as it runs (bubblewrap, cgroups, a disk of its own), with the
// small limits of this suite: a fork bomb, an allocation past the memory limit and a disk filler
// each end their run failed naming the limit, while another tenant's run started with them succeeds
// and the service goes on; the limits in force are the sandbox's `limits` lifecycle event.
import { assertStandInsBuilt } from '../harness/testing.js';
import { startSandboxesKit, type SandboxesKit } from '../testing/sandboxesKit.js';

let kit: SandboxesKit;
beforeAll(async () => {
  assertStandInsBuilt();
  kit = await startSandboxesKit();
  // Tens of megabytes, tens of tasks: nothing here writes or allocates more than the limits allow.
  await kit.startService({ SANDBOX_MEMORY_MB: '96', SANDBOX_PIDS: '48', SANDBOX_CPUS: '1', SANDBOX_DISK_MB: '24' });
});
afterAll(async () => {
  await kit?.stop();
});

/** Each command stops by itself: the fork bomb's children sleep 20 s at most, the allocation and the writes end at their limit. */
const FORK_BOMB = '@shell for i in $(seq 200); do sleep 20 & done; wait';
const ALLOCATION = `@shell node -e "const kept = []; for (let i = 0; i < 400; i++) kept.push(Buffer.alloc(1024 * 1024, 1)); console.log('allocated', kept.length)"`;
const DISK_FILLER = '@shell dd if=/dev/zero of=filler bs=1M count=64; echo wrote';

async function lifecycleOf(runId: string): Promise<{ event_type: string; decision_code: string | null; payload: Record<string, unknown> }[]> {
  const session = await kit.service!.deps.runSessions.get(runId);
  const events = await kit.service!.deps.sandboxRecords.lifecycleOf(session!.sandboxRecordId!);
  return events.map((event) => ({ event_type: event.event_type, decision_code: event.decision_code, payload: event.payload }));
}

describe('reaching a sandbox limit once ends the run failed naming the limit; another run at the same time succeeds', () => {
  test('a fork bomb: process limit; an allocation: memory limit; a disk filler: disk limit; the neighbour: success; the service lives on', async () => {
    const pid = process.pid;
    const repo = await kit.newRepo();
    const neighbour = await kit.newRepo();
    const [forkBomb, allocation, diskFiller, quiet] = await Promise.all([
      kit.requestRun(repo, FORK_BOMB),
      kit.requestRun(repo, ALLOCATION),
      kit.requestRun(repo, DISK_FILLER),
      kit.requestRun(neighbour, '@say unbothered\n@shell echo fine > fine.txt && cat fine.txt'),
    ]);
    const [bombed, allocated, filled, fine] = await Promise.all(
      [forkBomb, allocation, diskFiller, quiet].map((request) => kit.waitFinished(request.runId, 60_000)),
    );
    expect(bombed).toMatchObject({ status: 'failed', failure: 'agent' });
    expect(bombed?.error).toBe("process limit: a process of the run could not be started: the sandbox's 48 processes and threads (SANDBOX_PIDS) were in use");
    expect(allocated).toMatchObject({ status: 'failed', failure: 'agent' });
    expect(allocated?.error).toBe("memory limit: a process of the run was killed for using more than the sandbox's 96 MB of memory (SANDBOX_MEMORY_MB)");
    expect(filled).toMatchObject({ status: 'failed', failure: 'agent' });
    expect(filled?.error).toBe("disk limit: the sandbox's 24 MB of disk (SANDBOX_DISK_MB) are full");
    expect(fine).toMatchObject({ status: 'success' });
    expect(process.pid).toBe(pid);

    const codes = await Promise.all(
      [forkBomb, allocation, diskFiller].map(
        async (request) => (await lifecycleOf(request.runId)).find((e) => e.event_type === 'limit_reached')?.decision_code,
      ),
    );
    expect(codes).toEqual(['process_limit', 'memory_limit', 'disk_limit']);
    const limits = (await lifecycleOf(quiet.runId)).find((e) => e.event_type === 'limits');
    expect(limits).toMatchObject({ decision_code: 'enforced', payload: { memory_mb: 96, pids: 48, cpus: 1, disk_mb: 24, not_enforced: [] } });

    // The service still takes runs.
    const after = await kit.requestRun(neighbour, '@say still here');
    expect(await kit.waitFinished(after.runId, 30_000)).toMatchObject({ status: 'success' });
  }, 120_000);
});
