// The sandboxes SERVICE wired with SANDBOX_PROVIDER=kubernetes against the stand-in Kubernetes API
// server (@ars/kubernetes-stand-in, deploy/local/kubernetes-stand-in): runs from `runs.requested`, and public sandboxes through
// the internal routes, each in a Pod the stand-in runs as local processes. The harness CLIs are the
// stand-ins of bin/ (local paths, which exist "in the Pod" here). See
// src/providers/kubernetes/README.md for what the stand-in shows and what it cannot.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { waitFor } from '@ars/testenv';
import type { HarnessName } from './harness/index.js';
import { assertStandInsBuilt } from './harness/testing.js';
import { secretName } from './providers/kubernetes/podManifest.js';
import { NAMESPACE } from './providers/kubernetes/testing.js';
import type { LifecycleEvent, Sandbox, SandboxLogs } from './domain/sandboxView.js';
import { KubernetesStandIn, kubeletEvictionMessage } from '@ars/kubernetes-stand-in';
import { NO_EARLIER_PROMPTS } from '@ars/harness-stand-ins';
import { commitToBare, gitIn, startSandboxesKit, type SandboxesKit, type TestRepo } from './testing/sandboxesKit.js';

jest.setTimeout(180_000);

const WAIT = 120_000;
const CODEX_KEY = `sk-codex-k8s-wiring-${Date.now()}-secret`;
const ANTHROPIC_KEY = `sk-ant-k8s-wiring-${Date.now()}-secret`;

let standIn: KubernetesStandIn;
let kit: SandboxesKit;

beforeAll(async () => {
  assertStandInsBuilt();
  standIn = await KubernetesStandIn.start();
  kit = await startSandboxesKit();
  await kit.startService({
    SANDBOX_PROVIDER: 'kubernetes',
    MODEL_GATEWAY_POD_IP: '127.0.0.1',
    MODEL_GATEWAY_PORT: '0',
    EGRESS_PROXY_PORT: '0',
    K8S_API_SERVER: standIn.url,
    K8S_TOKEN: standIn.token,
    K8S_IMAGE: 'ars-sandbox:test',
    K8S_NAMESPACE: NAMESPACE,
    K8S_READY_TIMEOUT_MS: '120000',
    // The limits each Pod is held to (the stand-in enforces none: its kubelet reports are played by the tests).
    K8S_MEMORY_REQUEST: '512Mi',
    K8S_MEMORY_LIMIT: '3Gi',
    K8S_CPU_LIMIT: '1500m',
    K8S_EPHEMERAL_STORAGE_LIMIT: '6Gi',
    K8S_POD_PIDS_LIMIT: '1024',
    SESSION_HEARTBEAT_MS: '500',
    SANDBOX_IDLE_TIMEOUT_MS: '4000',
    SANDBOX_LOG_FLUSH_MS: '200',
    CODEX_API_KEY: CODEX_KEY,
    ANTHROPIC_API_KEY: ANTHROPIC_KEY,
  });
});

afterAll(async () => {
  await kit?.stop();
  await standIn?.stop();
});

interface Envelope<T> {
  ok: boolean;
  data: T;
  error?: { code: string; message: string };
}

/** The names of the Pods the service asked the stand-in to create. */
function createdPods(): string[] {
  return standIn.callsOf('pods', 'create').map((c) => (c.body as { metadata: { name: string } }).metadata.name);
}

/** Exec command lines recorded for one Pod. */
function execsOf(pod: string): string[][] {
  return standIn
    .callsOf('pods/exec')
    .filter((c) => c.name === pod)
    .map((c) => c.command ?? []);
}

function deleted(resource: 'pods' | 'secrets', name: string): boolean {
  return standIn.calls.some((c) => c.resource === resource && c.method === 'DELETE' && c.name === name && c.status === 200);
}

/** Waits until the stand-in holds neither the Pod nor its Secret, and both were deleted by the service. */
async function waitGone(pod: string): Promise<void> {
  await kit.waitFor(
    `pod ${pod} and its secret deleted`,
    () =>
      standIn.pod(NAMESPACE, pod) === undefined &&
      standIn.secret(NAMESPACE, secretName(pod)) === undefined &&
      deleted('pods', pod) &&
      deleted('secrets', secretName(pod)),
    WAIT,
  );
}

async function createSandbox(repo: TestRepo, body: Record<string, unknown>): Promise<Sandbox> {
  const answer = await kit.internal<Envelope<{ sandbox: Sandbox }>>('POST', `/internal/users/${repo.userId}/sandboxes`, { repoId: repo.repoId, ...body });
  expect(answer.status).toBe(202);
  return answer.body.data.sandbox;
}

async function logsOf(repo: TestRepo, id: string): Promise<SandboxLogs> {
  const answer = await kit.internal<Envelope<SandboxLogs>>('GET', `/internal/users/${repo.userId}/sandboxes/${id}/logs`);
  expect(answer.status).toBe(200);
  return answer.body.data;
}

/** Polls the logs route until `until` holds for what it answers. */
async function pollLogs(repo: TestRepo, id: string, what: string, until: (logs: SandboxLogs) => boolean): Promise<SandboxLogs> {
  let last: SandboxLogs | undefined;
  const held = async (): Promise<SandboxLogs | undefined> => {
    last = await logsOf(repo, id);
    return until(last) ? last : undefined;
  };
  return waitFor(() => `${what}; last: ${JSON.stringify(last)}`, held, { timeoutMs: WAIT, intervalMs: 100 });
}

const types = (events: LifecycleEvent[]): string[] => events.map((e) => e.event_type);
const has = (logs: SandboxLogs, type: string): boolean => logs.lifecycle_events.some((e) => e.event_type === type);

describe('a run on the Kubernetes provider: the harness runs through exec in a Pod, the branch is pushed, Pod and Secret are deleted', () => {
  it.each<[HarnessName, string, string]>([
    ['codex', 'k8s/run', CODEX_KEY],
    ['claude-code', 'k8s/run-claude', ANTHROPIC_KEY],
  ])(
    '%s: runs.sandbox-allocated names the kubernetes provider and a k8s- Pod; events in order; run.finished success; pushed; Pod deleted',
    async (harness, working, apiKey) => {
      const repo = await kit.newRepo();
      const baseBefore = gitIn(repo.barePath, 'rev-parse', 'refs/heads/main');
      const podsBefore = new Set(createdPods());
      const request = await kit.requestRun(repo, '@say hi\n@shell pwd\n@write notes.txt hello', {
        harness,
        branch: { base: 'main', working, createBranch: true },
      });
      const finished = await kit.waitFinished(request.runId, WAIT);
      const { allocated, events } = kit.messages(request.runId);

      // The allocation names the provider and the Pod.
      expect(allocated).toHaveLength(1);
      expect(allocated[0]).toEqual({
        runId: request.runId,
        sandboxRecordId: expect.stringMatching(/^sbx_/),
        sandboxId: expect.stringMatching(/^k8s-[0-9a-f]{20}$/),
        runtime: { provider: 'kubernetes/stand-in', runId: expect.stringMatching(/^ses_/) },
      });
      const pod = String(allocated[0]!.sandboxId);

      // Events in harness order, then the finish.
      expect(finished).toMatchObject({ runId: request.runId, status: 'success', error: null, failure: null, eventCount: events.length });
      expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
      expect(kit.messages(request.runId).eventIds).toEqual(events.map((_, i) => `${request.runId}:event:${i}`));
      expect(events[0]?.eventType).toBe('stream_started');
      expect(events.at(-1)?.eventType).toBe('completed');
      expect(events.filter((e) => e.eventType === 'assistant_message').map((e) => e.message)).toEqual(['hi']);
      const shell = events.find((e) => e.eventType === 'tool_call' && e.payload.kind === 'shell');
      // `@shell pwd` ran in the Pod, in its work tree on the /workspace volume.
      expect(String(shell?.payload.output).trim()).toBe('/workspace/repo');
      expect(events.some((e) => e.eventType === 'file_change' && /notes\.txt$/.test(String(e.message)))).toBe(true);

      // The Pod was created once for this run, with its labels, and the harness executed through exec in it.
      expect(createdPods().filter((name) => !podsBefore.has(name))).toEqual([pod]);
      const created = standIn.callsOf('pods', 'create').find((c) => (c.body as { metadata: { name: string } }).metadata.name === pod);
      expect(created?.status).toBe(201);
      expect(
        standIn
          .callsOf('secrets', 'create')
          .some((c) => c.name === null && (c.body as { metadata: { name: string } }).metadata.name === secretName(pod) && c.status === 201),
      ).toBe(true);
      expect((created?.body as { metadata: { labels: Record<string, string> } }).metadata.labels).toMatchObject({
        'agent-run-service.dev/record-id': allocated[0]!.sandboxRecordId,
        'agent-run-service.dev/run-id': request.runId,
      });
      const execs = execsOf(pod);
      expect(execs.length).toBeGreaterThan(0);
      expect(execs.some((command) => command.some((part) => /bin\/(codex|claude-code)-standin\.mjs$/.test(part)))).toBe(true);
      // Neither provider key nor the Kubernetes token is on any exec command line (the env goes on stdin).
      for (const call of standIn.callsOf('pods/exec')) {
        const line = JSON.stringify(call.command);
        expect(line).not.toContain(CODEX_KEY);
        expect(line).not.toContain(ANTHROPIC_KEY);
        expect(line).not.toContain(apiKey);
        expect(line).not.toContain(standIn.token);
      }

      // The working branch was pushed from the Pod's work tree: one commit on the base, with notes.txt.
      expect(gitIn(repo.barePath, 'rev-parse', 'refs/heads/main')).toBe(baseBefore);
      expect(gitIn(repo.barePath, 'rev-parse', `refs/heads/${working}^`)).toBe(baseBefore);
      expect(gitIn(repo.barePath, 'show', `refs/heads/${working}:notes.txt`)).toBe('hello');

      // After the run: Pod and Secret deleted; the record stopped with its lifecycle.
      await waitGone(pod);
      const record = await kit.service!.deps.sandboxRecords.get(repo.userId, allocated[0]!.sandboxRecordId);
      expect(record).toMatchObject({ status: 'stopped', provider: 'kubernetes', sandbox_id: pod, working_branch: working, error: null });
      const lifecycle = await kit.service!.deps.sandboxRecords.lifecycleOf(allocated[0]!.sandboxRecordId);
      expect(lifecycle.map((e) => e.event_type)).toEqual(['provisioning', 'limits', 'ready', 'stopped']);
    },
  );
});

describe("a conversation on the Kubernetes provider: a follow-up in a new Pod resumes from the thread read out of the last Pod's HOME", () => {
  it.each<HarnessName>(['codex', 'claude-code'])(
    '%s: the second run (same conversationId, another Pod) recalls the first prompt; a run of another conversation recalls nothing',
    async (harness) => {
      const repo = await kit.newRepo();
      const conversationId = `conv-k8s-${harness}-${Date.now()}`;
      const said = async (prompt: string, conversation: string): Promise<{ pod: string; messages: string[] }> => {
        const request = await kit.requestRun(repo, prompt, { harness, conversationId: conversation });
        const finished = await kit.waitFinished(request.runId, WAIT);
        expect(finished).toMatchObject({ status: 'success', error: null });
        const { allocated, events } = kit.messages(request.runId);
        const pod = String(allocated[0]?.sandboxId);
        await waitGone(pod);
        return { pod, messages: events.filter((e) => e.eventType === 'assistant_message').map((e) => String(e.message)) };
      };

      const first = await said('Where is the harbour config read?', conversationId);
      const second = await said('@recall', conversationId);
      const other = await said('@recall', `${conversationId}-other`);

      expect(new Set([first.pod, second.pod, other.pod]).size).toBe(3);
      expect(second.messages).toEqual(['Where is the harbour config read?']);
      // A fresh Pod's HOME holds no other conversation's thread (every Pod has a /workspace of its own).
      expect(other.messages).toEqual([NO_EARLIER_PROMPTS]);
    },
  );
});

describe('a public sandbox on the Kubernetes provider: provisioned in a Pod with its install step, idle-stopped with a snapshot and its Pod deleted, restored on a new Pod', () => {
  it('POST /internal/users/:userId/sandboxes → 202 → ready (install_log read from the Pod) → idle stop: stopped, snapshot_created, destroyed → restoreSnapshotId: ready on a new Pod', async () => {
    const repo = await kit.newRepo();
    // The install step echoes, and leaves an untracked file the snapshot keeps (seen again after the restore).
    const install = 'echo "install says hello from the pod"; [ -f .ars-installed ] && echo "the restored tree has .ars-installed"; echo done > .ars-installed';
    commitToBare(repo.barePath, 'main', { '.ars/sandbox.json': JSON.stringify({ install }) });

    const created = await createSandbox(repo, {});
    expect(created).toMatchObject({
      id: expect.stringMatching(/^sbx_/),
      status: 'provisioning',
      repo_id: repo.repoId,
      base_branch: 'main',
      working_branch: 'main',
      error: null,
    });

    // `ready` reached (polled through the logs route; the idle stop may follow it soon after).
    const ready = await pollLogs(repo, created.id, 'the sandbox to become ready', (logs) => has(logs, 'ready') || logs.sandbox.status === 'failed');
    expect(ready.sandbox.error).toBeNull();
    const pod = ready.sandbox.sandbox_id;
    expect(pod).toMatch(/^k8s-[0-9a-f]{20}$/);
    expect(createdPods()).toContain(pod);
    expect(ready.sandbox.install_log).toMatch(/^install says hello from the pod$/m);
    expect(ready.sandbox.install_log).not.toMatch(/^the restored tree has \.ars-installed$/m);
    const events = ready.lifecycle_events;
    expect(types(events).slice(0, 7)).toEqual(['requested', 'provisioning', 'provisioned', 'limits', 'install_started', 'install_finished', 'ready']);
    expect(events.find((e) => e.event_type === 'requested')?.decision_code).toBe('new_sandbox');
    expect(events.find((e) => e.event_type === 'provisioning')?.payload).toMatchObject({ provider: 'kubernetes' });
    expect(events.find((e) => e.event_type === 'provisioned')).toMatchObject({ decision_code: 'cloned', payload: { sandbox_id: pod } });
    expect(events.find((e) => e.event_type === 'install_started')).toMatchObject({ decision_code: 'configured', payload: { command: install } });
    expect(events.find((e) => e.event_type === 'install_finished')?.decision_code).toBe('exit_0');
    // Both the sandbox.json read and the install ran through exec in the Pod.
    const execs = execsOf(pod!);
    expect(execs.some((command) => command.includes(install))).toBe(true);
    expect(execs.some((command) => command.some((part) => part.includes('.ars/sandbox.json')))).toBe(true);

    // Idle stop: stopped, snapshotted, the Pod released.
    const stopped = await pollLogs(repo, created.id, 'the idle stop to finish', (logs) => has(logs, 'destroyed'));
    expect(stopped.sandbox).toMatchObject({ status: 'stopped', error: null, sandbox_id: pod, preview_url: null });
    expect(types(stopped.lifecycle_events).slice(-3)).toEqual(['idle_stopped', 'snapshot_created', 'destroyed']);
    expect(stopped.lifecycle_events.find((e) => e.event_type === 'idle_stopped')?.decision_code).toBe('idle_timeout');
    const snapshot = stopped.lifecycle_events.find((e) => e.event_type === 'snapshot_created');
    expect(snapshot?.payload).toEqual({ snapshot_id: expect.stringMatching(/./), bytes: expect.any(Number) });
    expect(stopped.lifecycle_events.find((e) => e.event_type === 'destroyed')?.payload).toEqual({ sandbox_id: pod });
    await waitGone(pod!);
    // The snapshot was taken from the Pod through exec (tar in the Pod).
    expect(execsOf(pod!).some((command) => command.includes('tar'))).toBe(true);

    // Restore: a new sandbox from the snapshot, ready on a new Pod, with the untracked file back.
    const snapshotId = String(snapshot?.payload.snapshot_id);
    const restored = await createSandbox(repo, { restoreSnapshotId: snapshotId });
    expect(restored.id).not.toBe(created.id);
    expect(restored).toMatchObject({ status: 'provisioning', base_branch: 'main', working_branch: 'main' });
    const restoredReady = await pollLogs(
      repo,
      restored.id,
      'the restored sandbox to become ready',
      (logs) => has(logs, 'ready') || logs.sandbox.status === 'failed',
    );
    expect(restoredReady.sandbox.error).toBeNull();
    const newPod = restoredReady.sandbox.sandbox_id;
    expect(newPod).toMatch(/^k8s-[0-9a-f]{20}$/);
    expect(newPod).not.toBe(pod);
    expect(createdPods()).toContain(newPod);
    expect(restoredReady.lifecycle_events.find((e) => e.event_type === 'requested')?.decision_code).toBe('restore_snapshot');
    expect(restoredReady.lifecycle_events.find((e) => e.event_type === 'provisioned')).toMatchObject({
      decision_code: 'snapshot_restored',
      payload: { sandbox_id: newPod, snapshot_id: snapshotId },
    });
    expect(restoredReady.sandbox.install_log).toMatch(/^install says hello from the pod$/m);
    expect(restoredReady.sandbox.install_log).toMatch(/^the restored tree has \.ars-installed$/m);

    // It idles out too: its Pod is deleted as well (nothing is left behind in the stand-in).
    await pollLogs(repo, restored.id, 'the restored sandbox to be destroyed', (logs) => has(logs, 'destroyed'));
    await waitGone(newPod!);
  });
});

describe('a clone failure on the Kubernetes provider ends the public sandbox failed (base_branch_missing) and deletes the Pod', () => {
  it('a baseBranch that does not exist: status failed, error naming the base branch, a failed lifecycle event base_branch_missing, the Pod and Secret deleted', async () => {
    const repo = await kit.newRepo();
    const podsBefore = new Set(createdPods());
    const created = await createSandbox(repo, { baseBranch: 'no-such-base' });
    expect(created).toMatchObject({ status: 'provisioning', base_branch: 'no-such-base' });

    const failed = await pollLogs(repo, created.id, 'the sandbox to fail', (logs) => logs.sandbox.status !== 'provisioning');
    expect(failed.sandbox.status).toBe('failed');
    expect(failed.sandbox.error).toContain('the base branch "no-such-base" does not exist');
    const failure = failed.lifecycle_events.find((e) => e.event_type === 'failed');
    expect(failure).toMatchObject({ decision_code: 'base_branch_missing', payload: { error: failed.sandbox.error } });
    expect(types(failed.lifecycle_events)).toEqual(['requested', 'provisioning', 'failed']);
    // The provider never handed a sandbox over: the record names no Pod.
    expect(failed.sandbox.sandbox_id).toBeNull();

    // One Pod was made for it (its init container failed the clone) and deleted again, with its Secret.
    const made = createdPods().filter((name) => !podsBefore.has(name));
    expect(made).toHaveLength(1);
    const pod = made[0]!;
    expect(standIn.callsOf('pods', 'create').find((c) => (c.body as { metadata: { name: string } }).metadata.name === pod)?.body).toMatchObject({
      metadata: { labels: { 'agent-run-service.dev/record-id': created.id } },
    });
    await waitGone(pod);
  });
});

/** The sandbox lifecycle of a run (event type, decision code, payload). */
async function lifecycleOfRun(runId: string): Promise<{ event_type: string; decision_code: string | null; payload: Record<string, unknown> }[]> {
  const session = await kit.service!.deps.runSessions.get(runId);
  const events = await kit.service!.deps.sandboxRecords.lifecycleOf(session!.sandboxRecordId!);
  return events.map((event) => ({ event_type: event.event_type, decision_code: event.decision_code, payload: event.payload }));
}

/** The limits every Pod of this suite is held to, as its `limits` lifecycle event carries them (K8S_* above). */
const LIMITS_IN_FORCE = { memory_mb: 3072, pids: 1024, cpus: 1.5, disk_mb: 6144, not_enforced: [] };

/** Starts a run whose turn says "started" then sleeps 30 s, and answers its Pod once the turn is running there. */
async function runningTurn(repo: TestRepo): Promise<{ runId: string; pod: string }> {
  const request = await kit.requestRun(repo, '@say started\n@sleep 30000\n@say too late', { harness: 'codex' });
  const said = (): boolean => kit.messages(request.runId).events.some((e) => e.eventType === 'assistant_message' && e.message === 'started');
  await kit.waitFor(`the turn of ${request.runId} to be running`, said, WAIT);
  const pod = String(kit.messages(request.runId).allocated[0]?.sandboxId);
  expect(pod).toMatch(/^k8s-[0-9a-f]{20}$/);
  // The CLI is running in the Pod (its exec is open), in its @sleep.
  expect(execsOf(pod).some((command) => command.some((part) => /bin\/codex-standin\.mjs$/.test(part)))).toBe(true);
  return { runId: request.runId, pod };
}

describe("a sandbox's limits lifecycle event carries the configured Kubernetes limits (K8S_MEMORY_LIMIT, K8S_CPU_LIMIT, K8S_EPHEMERAL_STORAGE_LIMIT, K8S_POD_PIDS_LIMIT)", () => {
  it('3Gi, 1500m, 6Gi and 1024 → limits enforced: memory_mb 3072, cpus 1.5, disk_mb 6144, pids 1024, the run time limit', async () => {
    const repo = await kit.newRepo();
    const request = await kit.requestRun(repo, '@say hi', { harness: 'codex' });
    expect(await kit.waitFinished(request.runId, WAIT)).toMatchObject({ status: 'success' });
    const limits = (await lifecycleOfRun(request.runId)).find((e) => e.event_type === 'limits');
    expect(limits).toEqual({
      event_type: 'limits',
      decision_code: 'enforced',
      payload: { ...LIMITS_IN_FORCE, time_limit_ms: expect.any(Number) },
    });
    await waitGone(String(kit.messages(request.runId).allocated[0]?.sandboxId));
  });
});

describe('a run whose Pod is OOM-killed mid-turn ends failed naming the memory limit (K8S_MEMORY_LIMIT), with a limit_reached lifecycle event memory_limit', () => {
  it('the kubelet reports the container OOMKilled during @sleep 30000: run.finished failed (agent) "memory limit: …", limit_reached memory_limit, the Pod deleted', async () => {
    const repo = await kit.newRepo();
    const { runId, pod } = await runningTurn(repo);
    await standIn.oomKill(NAMESPACE, pod);

    const finished = await kit.waitFinished(runId, WAIT);
    const error = "memory limit: a process of the run was killed for using more than the sandbox's 3072 MB of memory (K8S_MEMORY_LIMIT)";
    expect(finished).toMatchObject({ runId, status: 'failed', failure: 'agent', error });
    expect(kit.messages(runId).events.some((e) => e.eventType === 'assistant_message' && e.message === 'too late')).toBe(false);
    const lifecycle = await lifecycleOfRun(runId);
    expect(lifecycle.filter((e) => e.event_type === 'limit_reached')).toEqual([
      { event_type: 'limit_reached', decision_code: 'memory_limit', payload: { message: error } },
    ]);
    expect(lifecycle.find((e) => e.event_type === 'limits')?.payload).toMatchObject(LIMITS_IN_FORCE);
    await waitGone(pod);
  });
});

describe('a run whose Pod is evicted for its ephemeral storage ends failed naming the disk limit (K8S_EPHEMERAL_STORAGE_LIMIT), with a limit_reached lifecycle event disk_limit', () => {
  it('"Pod ephemeral local storage usage exceeds the total limit of containers 6Gi." during @sleep 30000: run.finished failed (agent) "disk limit: …", limit_reached disk_limit', async () => {
    const repo = await kit.newRepo();
    const { runId, pod } = await runningTurn(repo);
    await standIn.evict(NAMESPACE, pod, kubeletEvictionMessage.podEphemeralStorage('6Gi'));

    const finished = await kit.waitFinished(runId, WAIT);
    const error = "disk limit: the sandbox's 6144 MB of disk (K8S_EPHEMERAL_STORAGE_LIMIT) are full";
    expect(finished).toMatchObject({ runId, status: 'failed', failure: 'agent', error });
    const lifecycle = await lifecycleOfRun(runId);
    expect(lifecycle.filter((e) => e.event_type === 'limit_reached')).toEqual([
      { event_type: 'limit_reached', decision_code: 'disk_limit', payload: { message: error } },
    ]);
    await waitGone(pod);
  });
});
