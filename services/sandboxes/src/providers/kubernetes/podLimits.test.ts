// The Pod limits, pure: quantities in the units of the `limits` event, and the kubelet's Pod
// statuses that say a Pod reached its memory or storage limit. The statuses are written from the
// Kubernetes documentation (container states, the memory-limit task page's OOMKilled Pod, the
// kubelet's eviction messages), not taken from the stand-in, so a wrong rule there is caught here.
import { describe, expect, it } from '@jest/globals';
import type { V1ContainerStatus, V1PodStatus } from '@kubernetes/client-node';
import { podLimitHit, podLimitReached, podLimitsInForce, quantityCpus, quantityMebibytes } from './podLimits.js';

const T = new Date('2026-01-01T00:00:00Z');

/** The main container as the kubelet reports it while it runs. */
const RUNNING: V1ContainerStatus = {
  name: 'sandbox',
  image: 'ghcr.io/acme/sandbox:1',
  imageID: '',
  ready: true,
  started: true,
  restartCount: 0,
  state: { running: { startedAt: T } },
};

const CLONED: V1ContainerStatus = {
  name: 'clone',
  image: 'alpine/git:2.47.2',
  imageID: '',
  ready: true,
  restartCount: 0,
  state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: T, finishedAt: T } },
};

function status(overrides: Partial<V1PodStatus> = {}, main: Partial<V1ContainerStatus> = {}): V1PodStatus {
  return {
    phase: 'Running',
    podIP: '10.244.1.7',
    initContainerStatuses: [CLONED],
    containerStatuses: [{ ...RUNNING, ...main }],
    ...overrides,
  };
}

/** A Pod evicted by the kubelet: Failed, reason Evicted, its message; the containers killed (Error, 137). */
function evicted(message: string): V1PodStatus {
  return status(
    { phase: 'Failed', reason: 'Evicted', message },
    { ready: false, started: false, state: { terminated: { exitCode: 137, reason: 'Error', startedAt: T, finishedAt: T } } },
  );
}

describe('Kubernetes quantities become the limits event units: MB of 2^20 bytes and cores', () => {
  it.each([
    ['4Gi', 4096],
    ['512Mi', 512],
    ['1.5Gi', 1536],
    ['10Gi', 10240],
    ['1024Ki', 1],
    ['10G', 9536.74],
    ['1e9', 953.67],
    ['2Ti', 2097152],
    ['1M', 0.95],
  ])('%s of memory or storage is %s MB', (quantity, mb) => {
    expect(quantityMebibytes(quantity)).toBe(mb);
  });

  it.each([
    ['2', 2],
    ['500m', 0.5],
    ['1.5', 1.5],
    ['100m', 0.1],
    ['2500m', 2.5],
    ['1e0', 1],
  ])('%s of CPU is %s cores', (quantity, cpus) => {
    expect(quantityCpus(quantity)).toBe(cpus);
  });

  it('anything that is not a positive quantity is no limit (null)', () => {
    for (const quantity of ['lots', '', '4 Gi', '4GiB', '1e3Mi', '0', '-1Gi', '0m']) {
      expect(quantityMebibytes(quantity)).toBeNull();
      expect(quantityCpus(quantity)).toBeNull();
    }
  });
});

describe("the limits in force are the containers' limits and the kubelet's podPidsLimit as the operator says it", () => {
  const limits = { cpu: '2', memory: '4Gi', 'ephemeral-storage': '10Gi' };

  it('without K8S_POD_PIDS_LIMIT: pids null and named in not_enforced (the service neither sets nor knows one)', () => {
    expect(podLimitsInForce(limits, null)).toEqual({ memory_mb: 4096, pids: null, cpus: 2, disk_mb: 10240, not_enforced: ['pids'] });
  });

  it('with it: pids as configured, nothing in not_enforced', () => {
    expect(podLimitsInForce({ cpu: '1500m', memory: '3Gi', 'ephemeral-storage': '6Gi' }, 1024)).toEqual({
      memory_mb: 3072,
      pids: 1024,
      cpus: 1.5,
      disk_mb: 6144,
      not_enforced: [],
    });
  });

  it('a resource without a limit is null', () => {
    expect(podLimitsInForce({ memory: '1Gi' }, 512)).toEqual({ memory_mb: 1024, pids: 512, cpus: null, disk_mb: null, not_enforced: [] });
  });

  it('a hit names the Kubernetes setting behind the limit, and the limits without not_enforced', () => {
    const inForce = podLimitsInForce(limits, null);
    expect(podLimitHit('memory_limit', inForce)).toEqual({
      code: 'memory_limit',
      limits: { memory_mb: 4096, pids: null, cpus: 2, disk_mb: 10240 },
      setting: 'K8S_MEMORY_LIMIT',
    });
    expect(podLimitHit('disk_limit', inForce).setting).toBe('K8S_EPHEMERAL_STORAGE_LIMIT');
  });
});

describe('a container terminated OOMKilled (state, or lastState after a restart) is the memory limit', () => {
  it('restartPolicy Never: the container terminated OOMKilled with exit code 137, the Pod Failed', () => {
    const oom = status(
      { phase: 'Failed', conditions: [{ type: 'Ready', status: 'False', reason: 'PodFailed' }] },
      { ready: false, started: false, state: { terminated: { exitCode: 137, reason: 'OOMKilled', startedAt: T, finishedAt: T } } },
    );
    expect(podLimitReached(oom)).toBe('memory_limit');
  });

  it('restarted by the kubelet: running again, lastState terminated OOMKilled, restartCount 1', () => {
    const restarted = status({}, { restartCount: 1, lastState: { terminated: { exitCode: 137, reason: 'OOMKilled', startedAt: T, finishedAt: T } } });
    expect(podLimitReached(restarted)).toBe('memory_limit');
  });

  it('the init container OOM-killed counts too (it shares the resources)', () => {
    const init: V1ContainerStatus = { ...CLONED, state: { terminated: { exitCode: 137, reason: 'OOMKilled', startedAt: T, finishedAt: T } } };
    expect(podLimitReached(status({ phase: 'Failed', initContainerStatuses: [init] }))).toBe('memory_limit');
  });
});

describe("the Pod evicted for its own ephemeral storage (the kubelet's messages) is the disk limit", () => {
  it.each([
    ['the Pod over the total of its containers limits', 'Pod ephemeral local storage usage exceeds the total limit of containers 10Gi. '],
    ['an emptyDir over its sizeLimit', 'Usage of EmptyDir volume "workspace" exceeds the limit "10Gi". '],
    ['a container over its own limit', 'Container sandbox exceeded its local ephemeral storage limit "10Gi". '],
    ['the message without the trailing space', 'Pod ephemeral local storage usage exceeds the total limit of containers 10Gi.'],
  ])('%s', (_what, message) => {
    expect(podLimitReached(evicted(message))).toBe('disk_limit');
  });
});

describe("what is not the sandbox's limit is null: a running Pod, a Pod gone, a node's shortage, another end", () => {
  it.each<[string, V1PodStatus | null | undefined]>([
    ['a running Pod', status()],
    ['a Pod still starting', { phase: 'Pending', containerStatuses: [{ ...RUNNING, ready: false, state: { waiting: { reason: 'PodInitializing' } } }] }],
    ['a Pod that is gone (no status read)', null],
    ['an empty status', {}],
    [
      'node memory pressure',
      evicted(
        'The node was low on resource: memory. Threshold quantity: 100Mi, available: 52Mi. Container sandbox was using 3Gi, request is 1Gi, has larger consumption of memory. ',
      ),
    ],
    ['node disk pressure', evicted('The node was low on resource: ephemeral-storage. Threshold quantity: 10Gi, available: 9Gi. ')],
    ['a node condition', evicted('The node had condition: [DiskPressure]. ')],
    [
      'a container killed otherwise (Error, 137)',
      status({ phase: 'Failed' }, { state: { terminated: { exitCode: 137, reason: 'Error', startedAt: T, finishedAt: T } } }),
    ],
    [
      'a container that completed',
      status({ phase: 'Succeeded' }, { state: { terminated: { exitCode: 0, reason: 'Completed', startedAt: T, finishedAt: T } } }),
    ],
    ['the active deadline', status({ phase: 'Failed', reason: 'DeadlineExceeded', message: 'Pod was active on the node longer than the specified deadline' })],
    [
      'a storage message under another reason',
      status({ phase: 'Failed', reason: 'Shutdown', message: 'Pod ephemeral local storage usage exceeds the total limit of containers 10Gi. ' }),
    ],
  ])('%s', (_what, podStatus) => {
    expect(podLimitReached(podStatus)).toBeNull();
  });
});
