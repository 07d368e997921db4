import type { Collection, Db } from '@ars/mongo';
import { COLLECTIONS, type SandboxLogsDoc } from './collections.js';

export type LogName = 'install_log' | 'dev_log';

/** The install and dev logs of public sandboxes: one document per sandbox, each log rewritten whole (it is capped). */
export class SandboxLogStore {
  private readonly logs: Collection<SandboxLogsDoc>;

  constructor(db: Db) {
    this.logs = db.collection<SandboxLogsDoc>(COLLECTIONS.logs);
  }

  async write(sandboxRecordId: string, userId: string, name: LogName, text: string): Promise<void> {
    await this.logs.updateOne(
      { _id: sandboxRecordId },
      { $set: { [name]: text, updated_at: new Date() }, $setOnInsert: { userId, ...(name === 'install_log' ? { dev_log: null } : { install_log: null }) } },
      { upsert: true },
    );
  }

  async get(sandboxRecordId: string): Promise<SandboxLogsDoc | null> {
    return this.logs.findOne({ _id: sandboxRecordId });
  }
}
