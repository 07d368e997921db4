import type { Bus } from '@ars/bus';
import type { Logger } from '@ars/logger';
import type { KnownSecrets } from '@ars/sanitize';
import type { CatalogClient } from '@ars/catalog/client';
import type { HarnessClis } from '../harness/harnessClis.js';
import type { HarnessName } from '../harness/index.js';
import type { LifecycleDeps } from '../lifecycle/deps.js';
import type { SandboxProvider } from '../providers/provider.js';
import type { ConversationThreadStore } from '../store/conversationThreads.js';
import type { SandboxRecordStore } from '../store/sandboxRecords.js';
import type { RunSessionStore } from '../store/runSessions.js';
import type { LiveSessions } from './liveSessions.js';
import type { RunQueue } from './runQueue.js';

export interface SessionSettings {
  /** Which CLI runs each harness (HARNESS_CLIS, CODEX_PATH, CLAUDE_CODE_PATH). */
  clis: HarnessClis;
  /** Provider keys handed to the harness explicitly. */
  apiKeys: Record<HarnessName, string | undefined>;
  /** PATH, LANG and TZ of the harness environment. */
  harnessPath: string | undefined;
  lang: string | undefined;
  tz: string | undefined;
  publishDeadlineMs: number;
  defaultTimeoutMs: number;
  /** The service's secret values (provider keys, INTERNAL_TOKEN, MONGO_URL's password...): never published. */
  secrets: KnownSecrets;
  /** Sessions (allocating or running) this instance runs at once (SANDBOX_MAX_SESSIONS); more wait in `queue`. */
  maxSessions: number;
}

/** What the run use cases work with. */
export interface SessionDeps {
  /** This process instance: a session belongs to the instance that claimed it. */
  instanceId: string;
  bus: Bus;
  runSessions: RunSessionStore;
  sandboxRecords: SandboxRecordStore;
  provider: SandboxProvider;
  catalog: CatalogClient;
  live: LiveSessions;
  /** Runs waiting here for a session slot (or their user's room), oldest first. */
  queue: RunQueue;
  /** The kept sandboxes and snapshots: a workspace session's sandbox is kept between its runs like a public one. */
  lifecycle: LifecycleDeps;
  /** Conversations' harness threads, kept between their runs. */
  threads: ConversationThreadStore;
  /** Publishes the outbox (`run.finished`) now. */
  kickRelay: () => void;
  settings: SessionSettings;
  logger: Logger;
}
