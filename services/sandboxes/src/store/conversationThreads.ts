import type { Collection, Db } from '@ars/mongo';
import { COLLECTIONS, type ConversationThreadDoc } from './collections.js';

/** The key of a user's conversation: ids are the client's, so they are unique per user only. */
export function conversationKey(userId: string, conversationId: string): string {
  return `${userId}#${conversationId}`;
}

/** The harness threads of conversations, kept between their runs (and their sandboxes). */
export class ConversationThreadStore {
  private readonly threads: Collection<ConversationThreadDoc>;

  constructor(db: Db) {
    this.threads = db.collection<ConversationThreadDoc>(COLLECTIONS.conversationThreads);
  }

  async get(userId: string, conversationId: string): Promise<ConversationThreadDoc | null> {
    return this.threads.findOne({ _id: conversationKey(userId, conversationId) });
  }

  /** Replaces the conversation's thread state with the one its latest run left. */
  async save(doc: ConversationThreadDoc): Promise<void> {
    await this.threads.replaceOne({ _id: doc._id }, doc, { upsert: true });
  }
}
