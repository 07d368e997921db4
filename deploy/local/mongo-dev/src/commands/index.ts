// Command dispatch: the command is the body's first field; each runs synchronously to completion
// and its writes are journaled as one frame before the next command starts.
import type { Document } from 'bson';
import * as admin from './admin.js';
import type { CommandContext, CommandHandler } from './context.js';
import { CommandError } from './errors.js';
import * as indexes from './indexes.js';
import * as namespaces from './namespaces.js';
import * as read from './read.js';
import * as write from './write.js';

const COMMANDS: Record<string, CommandHandler> = {
  hello: admin.hello,
  isMaster: admin.hello,
  ismaster: admin.hello,
  ping: admin.ping,
  buildInfo: admin.buildInfo,
  buildinfo: admin.buildInfo,
  endSessions: admin.sessionsNoop,
  killSessions: admin.sessionsNoop,
  killAllSessions: admin.sessionsNoop,
  refreshSessions: admin.sessionsNoop,
  startSession: admin.sessionsNoop,
  commitTransaction: admin.refuseTransaction,
  abortTransaction: admin.refuseTransaction,
  serverStatus: admin.serverStatus,
  hostInfo: admin.hostInfo,
  whatsmyuri: admin.whatsmyuri,
  getCmdLineOpts: admin.getCmdLineOpts,
  connectionStatus: admin.connectionStatus,
  dbStats: admin.dbStats,
  listDatabases: namespaces.listDatabases,
  listCollections: namespaces.listCollections,
  create: namespaces.create,
  drop: namespaces.drop,
  dropDatabase: namespaces.dropDatabase,
  renameCollection: namespaces.renameCollection,
  collMod: indexes.collMod,
  insert: write.insert,
  update: write.update,
  delete: write.remove,
  findAndModify: write.findAndModify,
  findandmodify: write.findAndModify,
  find: read.find,
  getMore: read.getMore,
  killCursors: read.killCursors,
  count: read.count,
  distinct: read.distinct,
  aggregate: read.aggregate,
  createIndexes: indexes.createIndexes,
  listIndexes: indexes.listIndexes,
  dropIndexes: indexes.dropIndexes,
  deleteIndexes: indexes.dropIndexes,
};

const HANDSHAKE = new Set(['hello', 'isMaster', 'ismaster']);

export interface DispatchResult {
  reply: Document;
  command: string;
}

/** Runs one command; never throws: failures become `{ok: 0, code, codeName, errmsg}`. */
export function dispatch(body: Document, context: CommandContext, log: (line: string) => void): DispatchResult {
  const command = Object.keys(body)[0] ?? '';
  try {
    return { reply: run(command, body, context), command };
  } catch (error) {
    if (error instanceof CommandError) return { reply: error.toReply(), command };
    log(`command ${command} failed unexpectedly: ${(error as Error).stack ?? String(error)}`);
    return { reply: new CommandError(1, `internal error in ${command}: ${(error as Error).message}`).toReply(), command };
  } finally {
    context.engine.commit();
  }
}

function run(command: string, body: Document, context: CommandContext): Document {
  if (command === '$legacyQuery') {
    throw new CommandError(352, `Unsupported OP_QUERY on ${String(body.$legacyQuery)}. The client driver may require an upgrade.`);
  }
  if (context.via === 'query' && !HANDSHAKE.has(command)) {
    throw new CommandError(352, `Unsupported OP_QUERY command: ${command}. The client driver may require an upgrade.`);
  }
  if (body.startTransaction !== undefined || body.autocommit !== undefined) throw admin.transactionsRefused();
  if (context.db === '') throw new CommandError(40571, 'OP_MSG requests require a $db argument');
  const handler = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!handler) throw new CommandError(59, `no such command: '${command}'`);
  return handler(body, context);
}

export { CommandError };
