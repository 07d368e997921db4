import { randomBytes } from 'node:crypto';
import type { Collection, Db } from '@ars/mongo';
import { COLLECTIONS, type AgentDoc } from './collections.js';

export interface NewAgent {
  userId: string;
  name: string;
  slug: string | null;
  model: string;
  description: string | null;
  category: string | null;
}

export class AgentStore {
  private readonly agents: Collection<AgentDoc>;

  constructor(db: Db) {
    this.agents = db.collection<AgentDoc>(COLLECTIONS.agents);
  }

  /** Inserts the agent; a slug the user already uses is a duplicate-key error (code 11000). */
  async create(input: NewAgent): Promise<AgentDoc> {
    const doc: AgentDoc = { _id: randomBytes(12).toString('hex'), ...input, createdAt: new Date() };
    await this.agents.insertOne(doc);
    return doc;
  }

  /** The user's own agents, oldest first. */
  async list(userId: string): Promise<AgentDoc[]> {
    return this.agents.find({ userId }).sort({ createdAt: 1, _id: 1 }).toArray();
  }

  async findOwned(userId: string, id: string): Promise<AgentDoc | null> {
    return this.agents.findOne({ _id: id, userId });
  }
}
