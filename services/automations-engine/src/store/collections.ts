import type { CollectionIndexes } from '@ars/mongo';
import type { AutomationStatus } from '../domain/automationView.js';

/** The automations engine's collections (its own database only) and their documents. */
export const COLLECTIONS = {
  automations: 'automations',
  automationVersions: 'automation_versions',
  automationRuns: 'automation_runs',
} as const;

/**
 * One automation. Graphs are stored as JSON text: a node's `data` may hold any JSON (a start node's
 * `inputSchema` with `$schema`, `$ref`, keys with dots, deep nesting) that MongoDB field names and
 * BSON depth do not all take, and nothing queries inside a graph.
 */
export interface AutomationDoc {
  _id: string;
  /** The owner: every read and write is scoped to it. */
  userId: string;
  installationId: number;
  name: string;
  description: string | null;
  notes: string | null;
  status: AutomationStatus;
  draftGraphJson: string;
  publishedVersionId: string | null;
  /** The published version's number: a pointer only ever moves to a higher one. */
  publishedVersionNumber: number | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A published version: written once, never updated. */
export interface AutomationVersionDoc {
  _id: string;
  automationId: string;
  /** 1, 2, 3 … per automation (unique with `automationId`). */
  versionNumber: number;
  graphJson: string;
  createdAt: Date;
}

/** Automation run status (issue 13): `pending`, `running`, `waiting`, `success`, `failed`, `cancelled`. */
export type AutomationRunStatus = 'pending' | 'running' | 'waiting' | 'success' | 'failed' | 'cancelled';

/**
 * What `runSummary` reads of an automation run. The engine writes these documents (trigger and
 * execution); the fields here are the ones the summary needs, and the engine may add others.
 */
export interface AutomationRunDoc {
  _id: string;
  automationId: string;
  userId: string;
  status: AutomationRunStatus;
  createdAt: Date;
  /** When it reached a terminal status; null while live. */
  finishedAt: Date | null;
}

export const AUTOMATIONS_ENGINE_INDEXES: readonly CollectionIndexes[] = [
  { collection: COLLECTIONS.automations, indexes: [{ key: { userId: 1, createdAt: -1, _id: -1 }, name: 'user_created' }] },
  { collection: COLLECTIONS.automationVersions, indexes: [{ key: { automationId: 1, versionNumber: 1 }, name: 'automation_version', unique: true }] },
  {
    collection: COLLECTIONS.automationRuns,
    indexes: [
      { key: { automationId: 1, createdAt: -1 }, name: 'automation_created' },
      { key: { automationId: 1, status: 1, finishedAt: -1 }, name: 'automation_status_finished' },
    ],
  },
];
