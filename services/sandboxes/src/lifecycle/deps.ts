import type { Logger } from '@ars/logger';
import type { CatalogClient } from '@ars/catalog/client';
import type { SandboxProvider } from '../providers/provider.js';
import type { SandboxLogStore } from '../store/sandboxLogs.js';
import type { SandboxRecordStore } from '../store/sandboxRecords.js';
import type { SnapshotStore } from '../store/snapshots.js';
import type { LiveSandboxes } from './liveSandboxes.js';

export interface LifecycleSettings {
  /** A ready public sandbox unused for this long is stopped (and snapshotted). */
  idleTimeoutMs: number;
  /** The install step's limit. */
  installTimeoutMs: number;
  /** How long a dev server has to answer HTTP before `preview_url` is given up on. */
  devReadyTimeoutMs: number;
  /** Each of install_log and dev_log keeps at most this many bytes. */
  logCapBytes: number;
  /** How often a growing log is written to the store. */
  logFlushMs: number;
  /** Where snapshot archives are kept. */
  snapshotRoot: string;
  /** A snapshot older than this is deleted. */
  snapshotRetentionMs: number;
  /** Snapshots kept per user (the newest). */
  snapshotMaxPerUser: number;
  /** A deletion (or another claim) whose instance has been silent this long is taken over. */
  lostAfterMs: number;
  /** Values never shown in a log (provider keys, the internal token). */
  secrets: readonly string[];
  /** PATH, LANG and TZ of commands in the sandbox. */
  commandPath: string | undefined;
}

/** What the public sandbox use cases work with. */
export interface LifecycleDeps {
  instanceId: string;
  sandboxRecords: SandboxRecordStore;
  logs: SandboxLogStore;
  snapshots: SnapshotStore;
  provider: SandboxProvider;
  catalog: CatalogClient;
  live: LiveSandboxes;
  settings: LifecycleSettings;
  logger: Logger;
}
