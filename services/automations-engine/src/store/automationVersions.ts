import { isDuplicateKey, type Collection, type Db } from '@ars/mongo';
import type { VersionFields } from '../domain/automationView.js';
import type { FlowGraph } from '../domain/flowGraph.js';
import { COLLECTIONS, type AutomationVersionDoc } from './collections.js';

export type AutomationVersion = VersionFields & { automationId: string };

function toVersion(doc: AutomationVersionDoc): AutomationVersion {
  return {
    id: doc._id,
    automationId: doc.automationId,
    versionNumber: doc.versionNumber,
    graph: JSON.parse(doc.graphJson) as FlowGraph,
    createdAt: doc.createdAt,
  };
}

/** Published versions: inserted once, never updated or deleted. */
export class AutomationVersionStore {
  private readonly versions: Collection<AutomationVersionDoc>;

  constructor(db: Db) {
    this.versions = db.collection<AutomationVersionDoc>(COLLECTIONS.automationVersions);
  }

  /** The highest version number of the automation + 1 (1 for the first). */
  async nextNumber(automationId: string): Promise<number> {
    const [latest] = await this.versions.find({ automationId }).sort({ versionNumber: -1 }).limit(1).toArray();
    return (latest?.versionNumber ?? 0) + 1;
  }

  /** Inserts the version; false when its number is already taken (a concurrent publish won it). */
  async insert(version: AutomationVersion): Promise<boolean> {
    const { id, graph, ...rest } = version;
    try {
      await this.versions.insertOne({ _id: id, ...rest, graphJson: JSON.stringify(graph) });
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  async find(id: string): Promise<AutomationVersion | null> {
    const doc = await this.versions.findOne({ _id: id });
    return doc ? toVersion(doc) : null;
  }
}
