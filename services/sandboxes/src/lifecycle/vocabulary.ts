// The lifecycle vocabulary: every `event_type` a sandbox's `lifecycle_events` can hold, and the
// `decision_code`s each one carries. The README's table is this one; a test checks they agree.

export const LIFECYCLE_EVENTS = {
  requested: {
    decisionCodes: ['new_sandbox', 'restore_snapshot', 'workspace_session', 'workspace_restore'],
    means:
      'a create was accepted and a new sandbox will be provisioned (`workspace_…`: for a run of a workspace session, fresh or restored from its newest snapshot)',
  },
  reused: {
    decisionCodes: ['same_repo_and_branches', 'workspace_session'],
    means:
      'a create matched this live sandbox (same caller, repository, base and working branch, root directory), or a run of its workspace session took it: no new one',
  },
  provisioning: { decisionCodes: [], means: 'the provider is making the sandbox (clone, or restore of a snapshot)' },
  provisioned: { decisionCodes: ['cloned', 'snapshot_restored'], means: 'the repository is checked out (or restored); payload has `sandbox_id`' },
  install_started: {
    decisionCodes: [
      'configured',
      'lockfile:npm',
      'lockfile:pnpm',
      'lockfile:yarn',
      'lockfile:bun',
      'lockfile:uv',
      'lockfile:poetry',
      'lockfile:pipenv',
      'requirements:pip',
      'lockfile:bundler',
      'lockfile:go',
      'lockfile:cargo',
      'lockfile:composer',
    ],
    means: 'the install step started; the code says where its command came from',
  },
  install_finished: { decisionCodes: ['exit_0'], means: 'the install step succeeded' },
  install_failed: { decisionCodes: ['exit_nonzero', 'timeout', 'could_not_start'], means: 'the install step failed: the sandbox goes `failed`' },
  install_skipped: { decisionCodes: ['no_install_step'], means: 'no lock file and no configured install command' },
  ready: { decisionCodes: [], means: 'the sandbox is ready (for a run: its harness starts)' },
  dev_server_started: { decisionCodes: ['configured', 'package_json:dev'], means: 'the dev command started; payload has `port`' },
  dev_server_ready: { decisionCodes: [], means: 'the dev server answered HTTP: `preview_url` is set' },
  dev_server_unreachable: { decisionCodes: ['timeout'], means: 'the dev server did not answer HTTP in time: `preview_url` stays null' },
  dev_server_exited: { decisionCodes: ['exit_0', 'exit_nonzero'], means: 'the dev server stopped on its own: `preview_url` is cleared' },
  dev_server_stopped: { decisionCodes: [], means: 'the dev server was stopped with its sandbox' },
  idle_stopped: { decisionCodes: ['idle_timeout'], means: 'unused for SANDBOX_IDLE_TIMEOUT_MS: the sandbox is `stopped`' },
  snapshot_created: { decisionCodes: [], means: 'the stopped sandbox was snapshotted; payload has `snapshot_id` (for `restoreSnapshotId`) and `bytes`' },
  snapshot_deleted: {
    decisionCodes: ['retention', 'user_limit'],
    means:
      "the snapshot was deleted (archive and record): older than SNAPSHOT_RETENTION_MS, or beyond the user's newest SNAPSHOT_MAX_PER_USER; payload has `snapshot_id`; restoring it is 404",
  },
  snapshot_failed: { decisionCodes: [], means: 'the snapshot could not be taken; payload has `error`' },
  destroyed: { decisionCodes: [], means: "the sandbox's compute is gone (directory removed or Pod deleted)" },
  stopped: {
    decisionCodes: ['success', 'cancelled', 'service_shutdown', 'workspace_handover'],
    means: "a run's sandbox after its run ended, a public one when the service shut down, or a workspace session's asked for by another instance (snapshotted)",
  },
  run_ended: {
    decisionCodes: ['success', 'cancelled', 'agent', 'harness_crash', 'harness_timeout', 'sandbox_lost', 'sandbox_allocation', 'push'],
    means:
      "a run of the sandbox's workspace session ended (the code: its outcome); the sandbox stays `ready` for the next run, stopped (snapshotted) when idle",
  },
  failed: {
    decisionCodes: [
      'clone_failed',
      'base_branch_missing',
      'root_directory_missing',
      'root_directory_invalid',
      'working_branch_missing',
      'snapshot_restore_failed',
      'repo_not_found',
      'catalog_unavailable',
      'install_failed',
      'provider_error',
      'provision_timeout',
      'kubernetes_unauthorized',
      'kubernetes_forbidden',
      'kubernetes_namespace_not_found',
      'kubernetes_invalid',
      'kubernetes_unavailable',
      'kubernetes_pod_failed',
      'kubernetes_conflict',
      'agent',
      'harness_crash',
      'harness_timeout',
      'sandbox_allocation',
      'sandbox_lost',
      'push',
    ],
    means: 'the sandbox is `failed` with `error` set; the code says why',
  },
  egress_allowed: {
    decisionCodes: ['install', 'agent', 'clone'],
    means:
      "a command of the sandbox connected out through its egress proxy (the code: whose allowlist, an install step's, the agent's and dev server's, or a Pod's clone: its repository's host alone); payload: `host`, `port`, `address` (the resolved address connected to)",
  },
  egress_refused: {
    decisionCodes: ['install', 'agent', 'clone'],
    means:
      'the egress proxy refused a connection of the sandbox (the code: whose allowlist); payload: `host`, `port`, `reason` (not on the allowlist, an address instead of a name, or a name resolving to a loopback, private, link-local or host address), `address` when one was resolved',
  },
  limits: {
    decisionCodes: ['enforced', 'not_enforced'],
    means:
      "the limits in force for the sandbox's commands and agent (payload: `memory_mb`, `pids`, `cpus`, `disk_mb` — null: not limited —, a run's `time_limit_ms`, and `not_enforced` naming any the machine cannot hold); `not_enforced`: one or more cannot",
  },
  limit_reached: {
    decisionCodes: ['process_limit', 'memory_limit', 'disk_limit', 'time_limit', 'token_budget'],
    means:
      'the run reached a limit of its sandbox (a refused fork, an out-of-memory kill, a full disk, its wall-clock limit, its token budget): it ends `failed` naming the limit',
  },
  thread_new: {
    decisionCodes: ['first_run', 'none_kept', 'other_harness_or_repo', 'restore_failed'],
    means:
      'a run of a conversation started a new agent thread, and why (its first run; its last run left no thread; the kept thread is of another harness or repository; writing it back failed); payload: `conversationId`',
  },
  thread_resumed: {
    decisionCodes: ['restored'],
    means: 'a run of a conversation resumed its thread; payload: `conversationId`, `threadId`, `fromRunId` (the run that kept it)',
  },
  thread_kept: {
    decisionCodes: ['kept', 'over_limit'],
    means:
      'after a run of a conversation, its thread was stored (`over_limit`: too large, recorded so that the next run fails saying so); payload: `conversationId`, `threadId`, `files`, `bytes`',
  },
  thread_not_kept: {
    decisionCodes: ['no_state', 'unreadable', 'store_failed'],
    means:
      'after a run of a conversation, no thread was stored (the harness left none; its files could not be read; the store refused): the next run starts a new thread',
  },
  lost: { decisionCodes: ['sandbox_lost', 'cancelled'], means: 'the instance keeping it stopped (found by the heartbeat sweep): `failed`' },
} as const;

export type LifecycleEventType = keyof typeof LIFECYCLE_EVENTS;
