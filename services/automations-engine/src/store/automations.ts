import type { Collection, Db, Filter } from '@ars/mongo';
import type { FlowGraph } from '../domain/flowGraph.js';
import type { AutomationFields } from '../domain/automationView.js';
import type { ListPosition } from '../domain/listCursor.js';
import { COLLECTIONS, type AutomationDoc } from './collections.js';

/** An automation as the service works with it: the stored document with its draft graph parsed. */
export type AutomationRecord = AutomationFields & { userId: string; publishedVersionNumber: number | null };

/** A version to point the automation at (`publishedVersionId`). */
export interface PublishedPointer {
  id: string;
  versionNumber: number;
}

/** The fields a change may set (`updatedAt` is always set). */
export type AutomationChange = Partial<Pick<AutomationRecord, 'installationId' | 'name' | 'description' | 'notes' | 'status' | 'draftGraph'>>;

function toRecord(doc: AutomationDoc): AutomationRecord {
  const { _id, draftGraphJson, ...rest } = doc;
  return { id: _id, ...rest, draftGraph: JSON.parse(draftGraphJson) as FlowGraph };
}

function toDoc(record: AutomationRecord): AutomationDoc {
  const { id, draftGraph, ...rest } = record;
  return { _id: id, ...rest, draftGraphJson: JSON.stringify(draftGraph) };
}

export class AutomationStore {
  private readonly automations: Collection<AutomationDoc>;

  constructor(db: Db) {
    this.automations = db.collection<AutomationDoc>(COLLECTIONS.automations);
  }

  async insert(record: AutomationRecord): Promise<void> {
    await this.automations.insertOne(toDoc(record));
  }

  /** The user's automation, or null when it does not exist or belongs to someone else. */
  async findOwned(userId: string, id: string): Promise<AutomationRecord | null> {
    const doc = await this.automations.findOne({ _id: id, userId });
    return doc ? toRecord(doc) : null;
  }

  /** The user's automations, newest first (`createdAt`, then id), after `position` when given. */
  async listOwned(userId: string, options: { limit: number; after?: ListPosition }): Promise<AutomationRecord[]> {
    const filter: Filter<AutomationDoc> = { userId };
    if (options.after) {
      const { createdAt, id } = options.after;
      filter.$or = [{ createdAt: { $lt: createdAt } }, { createdAt, _id: { $lt: id } }];
    }
    const docs = await this.automations.find(filter).sort({ createdAt: -1, _id: -1 }).limit(options.limit).toArray();
    return docs.map(toRecord);
  }

  /**
   * Applies `change` (and points at `published` when given) in one document write; the updated
   * automation, or null when it is not the user's or, with `published`, when a version with a
   * higher number is already published (the pointer never moves back).
   */
  async update(userId: string, id: string, change: AutomationChange, now: Date, published?: PublishedPointer): Promise<AutomationRecord | null> {
    const { draftGraph, ...fields } = change;
    const set: Partial<AutomationDoc> = { ...fields, updatedAt: now };
    if (draftGraph !== undefined) set.draftGraphJson = JSON.stringify(draftGraph);
    const filter: Filter<AutomationDoc> = { _id: id, userId };
    if (published) {
      set.publishedVersionId = published.id;
      set.publishedVersionNumber = published.versionNumber;
      filter.$or = [{ publishedVersionNumber: null }, { publishedVersionNumber: { $lt: published.versionNumber } }];
    }
    const doc = await this.automations.findOneAndUpdate(filter, { $set: set }, { returnDocument: 'after' });
    return doc ? toRecord(doc) : null;
  }
}
