import { randomUUID } from 'node:crypto';
import { AppError, isAppError } from '@ars/errors';
import { parseFlowGraph, type FlowGraph } from '../domain/flowGraph.js';
import { publishProblems, publishRefusalMessage, type Problem } from '../domain/publishChecks.js';
import type { AutomationVersion } from '../store/automationVersions.js';
import type { AutomationsDeps } from './deps.js';

/** A graph of a request body (`graph`), checked whole: 400 naming every problem's path, before anything changes. */
export function requestGraph(value: unknown): FlowGraph {
  const parsed = parseFlowGraph(value, 'graph');
  if (!parsed.ok) throw AppError.badRequest(parsed.problems.join('; '));
  return parsed.graph;
}

/** 404 unless the installation is the user's (the catalog decides; another user's looks like none). */
export async function requireOwnInstallation(deps: AutomationsDeps, userId: string, installationId: number): Promise<void> {
  try {
    await deps.catalog.installation(userId, installationId);
  } catch (error) {
    if (isAppError(error) && error.code === 'NOT_FOUND') throw AppError.notFound('Installation not found');
    throw error;
  }
}

/** Every publish problem of `graph` against the user's agents and models (`GET /agents`, `GET /models`). */
export async function graphProblems(deps: AutomationsDeps, userId: string, graph: FlowGraph): Promise<Problem[]> {
  const [agents, models] = await Promise.all([deps.catalog.listAgents(userId), deps.catalog.listModels(userId)]);
  return publishProblems(graph, { agentIds: new Set(agents.map((agent) => agent.id)), modelIds: new Set(models.map((model) => model.id)) });
}

/** 400 BAD_REQUEST listing every problem when `graph` cannot be published. */
export async function requirePublishable(deps: AutomationsDeps, userId: string, graph: FlowGraph): Promise<void> {
  const problems = await graphProblems(deps, userId, graph);
  if (problems.length > 0) throw AppError.badRequest(publishRefusalMessage(problems));
}

/** Attempts at a version number before giving up: each lost one means a concurrent publish took it. */
const VERSION_ATTEMPTS = 5;

/**
 * Writes the next immutable version of the automation (highest number + 1). The caller then points
 * the automation at it; a crash in between leaves a version nothing points at, which the next
 * publish numbers past and no reader ever sees.
 */
export async function writeVersion(deps: AutomationsDeps, automationId: string, graph: FlowGraph, now: Date): Promise<AutomationVersion> {
  for (let attempt = 0; attempt < VERSION_ATTEMPTS; attempt += 1) {
    const version: AutomationVersion = { id: randomUUID(), automationId, versionNumber: await deps.versions.nextNumber(automationId), graph, createdAt: now };
    if (await deps.versions.insert(version)) return version;
  }
  throw AppError.conflict('the automation is being published concurrently; try again');
}
