import type { FlowGraph } from '../domain/flowGraph.js';
import { prepareGraph, type ExecutableGraph, type RunProgram } from '../domain/run/index.js';
import type { AutomationRunRecord } from '../store/automationRuns.js';
import type { AutomationVersionStore } from '../store/automationVersions.js';

/** How many prepared versions stay in memory (a version is immutable: prepared once, used by all its runs). */
const KEPT = 200;

/** The program a run executes: its pinned version's graph, prepared once per version, and the catalog it was triggered with. */
export class ProgramCache {
  private readonly graphs = new Map<string, { graph: ExecutableGraph; types: ReadonlyMap<string, FlowGraph['nodes'][number]['type']> }>();

  constructor(private readonly versions: Pick<AutomationVersionStore, 'find'>) {}

  async program(run: Pick<AutomationRunRecord, 'versionId' | 'catalog'>): Promise<RunProgram> {
    return { graph: (await this.prepared(run.versionId)).graph, catalog: run.catalog };
  }

  /** Each node's type in the version (the run views name them). */
  async nodeTypes(versionId: string): Promise<ReadonlyMap<string, FlowGraph['nodes'][number]['type']>> {
    return (await this.prepared(versionId)).types;
  }

  private async prepared(versionId: string) {
    const cached = this.graphs.get(versionId);
    if (cached) return cached;
    const version = await this.versions.find(versionId);
    if (!version) throw new Error(`published version ${versionId} is missing`);
    const entry = { graph: prepareGraph(version.graph), types: new Map(version.graph.nodes.map((node) => [node.id, node.type])) };
    if (this.graphs.size >= KEPT) this.graphs.delete(this.graphs.keys().next().value as string);
    this.graphs.set(versionId, entry);
    return entry;
  }
}
