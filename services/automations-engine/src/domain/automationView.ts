import type { FlowGraph } from './flowGraph.js';

/** CONTRACT.md, Automation status. */
export const AUTOMATION_STATUSES = ['active', 'inactive'] as const;
export type AutomationStatus = (typeof AUTOMATION_STATUSES)[number];

/** CONTRACT.md, Automation (full), `runSummary`. */
export interface RunSummary {
  lastRunId: string | null;
  lastRunStatus: string | null;
  runningCount: number;
  pendingCount: number;
  failed24h: number;
}

/** CONTRACT.md, Automation summary: never a graph. */
export interface AutomationSummary {
  id: string;
  installationId: number;
  name: string;
  description: string | null;
  status: AutomationStatus;
  publishedVersionId: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface PublishedVersion {
  id: string;
  versionNumber: number;
  graph: FlowGraph;
  createdAt: string;
}

/** CONTRACT.md, Automation (full). */
export interface Automation {
  id: string;
  installationId: number;
  name: string;
  description: string | null;
  notes: string | null;
  status: AutomationStatus;
  draftGraph: FlowGraph;
  publishedVersion: PublishedVersion | null;
  createdAt: string;
  updatedAt: string;
  runSummary: RunSummary;
}

/** What the views are built from (the store's records, by shape). */
export interface AutomationFields {
  id: string;
  installationId: number;
  name: string;
  description: string | null;
  notes: string | null;
  status: AutomationStatus;
  draftGraph: FlowGraph;
  publishedVersionId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface VersionFields {
  id: string;
  versionNumber: number;
  graph: FlowGraph;
  createdAt: Date;
}

export function toAutomationSummary(automation: AutomationFields): AutomationSummary {
  return {
    id: automation.id,
    installationId: automation.installationId,
    name: automation.name,
    description: automation.description,
    status: automation.status,
    publishedVersionId: automation.publishedVersionId,
    createdAt: automation.createdAt.toISOString(),
    updatedAt: automation.updatedAt.toISOString(),
  };
}

export function toAutomation(automation: AutomationFields, published: VersionFields | null, runSummary: RunSummary): Automation {
  return {
    id: automation.id,
    installationId: automation.installationId,
    name: automation.name,
    description: automation.description,
    notes: automation.notes,
    status: automation.status,
    draftGraph: automation.draftGraph,
    publishedVersion: published
      ? { id: published.id, versionNumber: published.versionNumber, graph: published.graph, createdAt: published.createdAt.toISOString() }
      : null,
    createdAt: automation.createdAt.toISOString(),
    updatedAt: automation.updatedAt.toISOString(),
    runSummary,
  };
}
