// A sandbox Pod's limits (pure): what the settings hold each Pod to, in the units of the `limits`
// lifecycle event, and whether the status the kubelet reported for a Pod says the Pod reached one
// of them. The provider reads the Pod (kubernetesPods.ts); this decides. Written from the
// Kubernetes documentation, not from a cluster's answers:
// - Resource units (memory in bytes with the suffixes `Ki`…`Ei`, `k`…`E`; CPU in cores, `m` a
//   thousandth): https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#resource-units-in-kubernetes
//   and the Quantity grammar: https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/quantity/
// - Container states (`terminated` with its `reason` and `exitCode`, and `lastState` for the run
//   before a restart) and Pod phases (`Failed`: every container terminated, one in failure, as
//   `restartPolicy: Never` leaves a Pod): https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#container-states
// - Over its memory limit a container is terminated, the kubelet reporting `reason: OOMKilled`
//   (exit code 137): https://kubernetes.io/docs/tasks/configure-pod-container/assign-memory-resource/#exceed-a-container-s-memory-limit
//   and https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#how-pods-with-resource-limits-are-run
// - Over its ephemeral-storage limit (its containers' writable layers, logs and `emptyDir` volumes)
//   a Pod is evicted by the kubelet: https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#local-ephemeral-storage
//   The eviction sets `status.phase: Failed`, `status.reason: Evicted` and the kubelet's message,
//   one of (pkg/kubelet/eviction/helpers.go: podEphemeralStorageMessageFmt, emptyDirMessageFmt,
//   containerEphemeralStorageMessageFmt):
//     Pod ephemeral local storage usage exceeds the total limit of containers 10Gi.
//     Usage of EmptyDir volume "workspace" exceeds the limit "10Gi".
//     Container sandbox exceeded its local ephemeral storage limit "10Gi".
// - A node short of memory or disk evicts Pods too ("The node was low on resource: memory. …"):
//   https://kubernetes.io/docs/concepts/scheduling-eviction/node-pressure-eviction/ — that is the
//   node's shortage, not the sandbox's limit, so it is not reported as one.
import type { V1ContainerStatus, V1PodStatus } from '@kubernetes/client-node';
import type { SandboxLimitHit, SandboxLimitsInForce } from '../provider.js';
import { quantityValue, type ResourceList } from './podManifest.js';

const MiB = 2 ** 20;

/** The setting behind each limit a Pod can reach, as the run's error names it. */
export const POD_LIMIT_SETTINGS = { memory_limit: 'K8S_MEMORY_LIMIT', disk_limit: 'K8S_EPHEMERAL_STORAGE_LIMIT' } as const;

export type PodLimitCode = keyof typeof POD_LIMIT_SETTINGS;

/**
 * A byte quantity (`4Gi`, `512Mi`, `10G`, `1e9`) in MB of 2^20 bytes (the unit of `memory_mb` and
 * `disk_mb`, as the local provider's), to two decimals; null when it is not a quantity or not
 * positive (no limit). A fraction of a byte counts as a whole one, as Kubernetes rounds it up.
 */
export function quantityMebibytes(quantity: string): number | null {
  const value = quantityValue(quantity.trim());
  if (value === null || !(value > 0)) return null;
  return Math.round((Math.ceil(value) / MiB) * 100) / 100;
}

/** A CPU quantity (`2`, `500m`, `1.5`) in cores, to the millicore; null when it is not a quantity or not positive. */
export function quantityCpus(quantity: string): number | null {
  const value = quantityValue(quantity.trim());
  if (value === null || !(value > 0)) return null;
  return Math.round(value * 1000) / 1000;
}

/**
 * The limits each sandbox Pod is held to: its containers' `resources.limits` and the kubelet's
 * `podPidsLimit` as the operator says it is (`K8S_POD_PIDS_LIMIT`). Without that setting the
 * service neither sets nor knows a process limit for its Pods: `pids` is null and `pids` is named
 * in `not_enforced` (a kubelet may still hold one; nothing here can say).
 */
export function podLimitsInForce(limits: ResourceList, podPidsLimit: number | null): SandboxLimitsInForce {
  return {
    memory_mb: limits.memory === undefined ? null : quantityMebibytes(limits.memory),
    pids: podPidsLimit,
    cpus: limits.cpu === undefined ? null : quantityCpus(limits.cpu),
    disk_mb: limits['ephemeral-storage'] === undefined ? null : quantityMebibytes(limits['ephemeral-storage']),
    not_enforced: podPidsLimit === null ? ['pids'] : [],
  };
}

/** The kubelet's messages for a Pod evicted for its own ephemeral-storage limits (not a node's shortage). */
const OWN_STORAGE_EVICTION = [
  /^Pod ephemeral local storage usage exceeds the total limit of containers \S+/,
  /^Usage of EmptyDir volume ".*" exceeds the limit ".*"/,
  /^Container \S+ exceeded its local ephemeral storage limit ".*"/,
];

function oomKilled(container: V1ContainerStatus): boolean {
  return container.state?.terminated?.reason === 'OOMKilled' || container.lastState?.terminated?.reason === 'OOMKilled';
}

/**
 * The limit a Pod reached, by the status the kubelet reported: a container (init or main)
 * terminated `OOMKilled`, now or before a restart → `memory_limit`; the Pod evicted for its own
 * ephemeral storage → `disk_limit`. Anything else (running, ended otherwise, evicted for the node's
 * shortage, gone) → null.
 */
export function podLimitReached(status: V1PodStatus | null | undefined): PodLimitCode | null {
  if (!status) return null;
  const containers = [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])];
  if (containers.some(oomKilled)) return 'memory_limit';
  const message = status.message?.trim() ?? '';
  if (status.reason === 'Evicted' && OWN_STORAGE_EVICTION.some((pattern) => pattern.test(message))) return 'disk_limit';
  return null;
}

/** The seam's answer for a Pod that reached a limit: the code, the limits in force and the setting behind it. */
export function podLimitHit(code: PodLimitCode, limits: SandboxLimitsInForce): SandboxLimitHit {
  const { memory_mb, pids, cpus, disk_mb } = limits;
  return { code, limits: { memory_mb, pids, cpus, disk_mb }, setting: POD_LIMIT_SETTINGS[code] };
}
