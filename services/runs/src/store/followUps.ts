import { isDuplicateKey, type Collection, type Db, type Filter } from '@ars/mongo';
import { COLLECTIONS, type ConversationDoc, type WorkspaceSessionDoc } from './collections.js';

/**
 * The bindings of conversations (repository, harness) and workspace sessions (repository), per
 * user. The first start naming one inserts it; the unique index refuses a racing second insert,
 * which then reads the winner's. So every run of one id is compared with one stored binding: no
 * read-then-write decides it (deriving it from the id's earlier runs could not be exact — two first
 * runs for different repositories could both see none).
 */
export class FollowUpStore {
  private readonly conversations: Collection<ConversationDoc>;
  private readonly workspaceSessions: Collection<WorkspaceSessionDoc>;

  constructor(db: Db) {
    this.conversations = db.collection<ConversationDoc>(COLLECTIONS.conversations);
    this.workspaceSessions = db.collection<WorkspaceSessionDoc>(COLLECTIONS.workspaceSessions);
  }

  /** The conversation's binding: `candidate` when this call made it, else the one stored first. */
  async bindConversation(candidate: ConversationDoc): Promise<ConversationDoc> {
    return bindOnce(this.conversations, { userId: candidate.userId, conversationId: candidate.conversationId }, candidate);
  }

  /** The workspace session's binding: `candidate` when this call made it, else the one stored first. */
  async bindWorkspaceSession(candidate: WorkspaceSessionDoc): Promise<WorkspaceSessionDoc> {
    return bindOnce(this.workspaceSessions, { userId: candidate.userId, workspaceSessionId: candidate.workspaceSessionId }, candidate);
  }
}

async function bindOnce<T extends ConversationDoc | WorkspaceSessionDoc>(collection: Collection<T>, filter: Filter<T>, candidate: T): Promise<T> {
  const projection = { _id: 0 };
  // Most starts name an id that is bound already: read first, so they make no failing write.
  const found = await collection.findOne<T>(filter, { projection });
  if (found) return found;
  try {
    // insertOne adds an `_id` to the object it is given: hand it a copy.
    await collection.insertOne({ ...candidate } as Parameters<Collection<T>['insertOne']>[0]);
    return candidate;
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
    const winner = await collection.findOne<T>(filter, { projection });
    if (!winner) throw new Error(`${collection.collectionName}: binding vanished after a duplicate key`);
    return winner;
  }
}
