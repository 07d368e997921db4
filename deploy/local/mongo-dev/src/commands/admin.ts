// The handshake and the server-level commands a driver or a shell sends: hello/isMaster, ping,
// buildInfo, sessions, and a few status commands.
import { type Document } from 'bson';
import { MAX_BSON_OBJECT_SIZE, MAX_MESSAGE_SIZE } from '../wire/messages.js';
import type { CommandHandler } from './context.js';
import { CommandError } from './errors.js';

/** MongoDB 7.0's wire version: within what driver 7 accepts (9..29), and the version our behaviour follows. */
export const MAX_WIRE_VERSION = 21;
export const VERSION = '7.0.0';

export const hello: CommandHandler = (body, context) => {
  const legacy = !('hello' in body);
  const reply: Document = {};
  if (body.helloOk === true) reply.helloOk = true;
  reply[legacy ? 'ismaster' : 'isWritablePrimary'] = true;
  // No topologyVersion: the driver then polls instead of holding a streaming hello open.
  // No `compression` field: compression is refused, so the driver never sends OP_COMPRESSED.
  Object.assign(reply, {
    maxBsonObjectSize: MAX_BSON_OBJECT_SIZE,
    maxMessageSizeBytes: MAX_MESSAGE_SIZE,
    maxWriteBatchSize: 100_000,
    localTime: new Date(),
    logicalSessionTimeoutMinutes: 30,
    connectionId: context.connectionId,
    minWireVersion: 0,
    maxWireVersion: MAX_WIRE_VERSION,
    readOnly: false,
    ok: 1,
  });
  return reply;
};

export const ping: CommandHandler = () => ({ ok: 1 });

export const buildInfo: CommandHandler = () => ({
  version: VERSION,
  gitVersion: 'mongo-dev',
  versionArray: [7, 0, 0, 0],
  bits: 64,
  debug: false,
  maxBsonObjectSize: MAX_BSON_OBJECT_SIZE,
  storageEngines: ['mongo-dev'],
  modules: [],
  ok: 1,
});

export const sessionsNoop: CommandHandler = () => ({ ok: 1 });

export const refuseTransaction: CommandHandler = () => {
  throw transactionsRefused();
};

export function transactionsRefused(): CommandError {
  // Not MongoDB's code 20 (IllegalOperation): the driver rewrites any code-20 write error into
  // advice about retryable writes, which would hide what is actually refused.
  return new CommandError(238, 'multi-document transactions are not supported by the development server (a standalone node); services must not need them');
}

export const serverStatus: CommandHandler = (_body, context) => ({
  host: `${context.server.host}:${context.server.port}`,
  version: VERSION,
  process: 'mongo-dev',
  pid: process.pid,
  uptime: Math.floor((Date.now() - context.server.startedAt.getTime()) / 1000),
  localTime: new Date(),
  connections: { current: context.server.connections(), available: 1000 },
  ok: 1,
});

export const hostInfo: CommandHandler = (_body, context) => ({
  system: { currentTime: new Date(), hostname: context.server.host },
  os: { type: process.platform },
  extra: {},
  ok: 1,
});

export const whatsmyuri: CommandHandler = () => ({ you: 'unknown', ok: 1 });

export const getCmdLineOpts: CommandHandler = (_body, context) => ({
  argv: process.argv.slice(1),
  parsed: { net: { port: context.server.port, bindIp: context.server.host }, storage: { dbPath: context.server.dbpath ?? '' } },
  ok: 1,
});

export const connectionStatus: CommandHandler = () => ({ authInfo: { authenticatedUsers: [], authenticatedUserRoles: [] }, ok: 1 });

export const dbStats: CommandHandler = (_body, context) => {
  const collections = context.engine.collections(context.db);
  const objects = collections.reduce((sum, collection) => sum + collection.size, 0);
  const indexes = collections.reduce((sum, collection) => sum + collection.indexes.size + 1, 0);
  return { db: context.db, collections: collections.length, views: 0, objects, indexes, ok: 1 };
};
