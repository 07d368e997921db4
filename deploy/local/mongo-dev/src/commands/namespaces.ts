// create, drop, dropDatabase, listCollections, listDatabases.
import type { Document } from 'bson';
import { compileFilter } from '../query/select.js';
import { ID_INDEX } from '../storage/collection.js';
import { collectionName, nonNegative, optionalDocument, type CommandHandler } from './context.js';
import { CommandError } from './errors.js';

const CREATE_OPTIONS = new Set(['validator', 'validationLevel', 'validationAction']);
/** Fields every command may carry (sessions, concerns, API version), not options of `create`. */
const IGNORED_FIELDS = new Set([
  'create',
  'writeConcern',
  'readConcern',
  'lsid',
  'txnNumber',
  '$db',
  '$clusterTime',
  '$readPreference',
  'comment',
  'maxTimeMS',
  'apiVersion',
  'apiStrict',
  'apiDeprecationErrors',
]);

export const create: CommandHandler = (body, context) => {
  const name = collectionName(body, 'create');
  const options: Document = {};
  for (const [key, value] of Object.entries(body)) {
    if (IGNORED_FIELDS.has(key)) continue;
    if (CREATE_OPTIONS.has(key)) {
      // Validators would need enforcing on every write; refuse rather than store and ignore them.
      throw new CommandError(238, `create option '${key}' is not supported by the development server`);
    }
    if (key === 'capped' && value === false) continue;
    throw new CommandError(238, `create option '${key}' is not supported by the development server`);
  }
  context.engine.createCollection(context.db, name, options);
  return { ok: 1 };
};

export const drop: CommandHandler = (body, context) => {
  const name = collectionName(body, 'drop');
  const collection = context.engine.collection(context.db, name);
  if (!collection) return { ok: 1 };
  const nIndexesWas = collection.indexes.size + 1;
  context.engine.dropCollection(context.db, name);
  return { nIndexesWas, ns: collection.ns, ok: 1 };
};

export const dropDatabase: CommandHandler = (_body, context) => {
  context.engine.dropDatabase(context.db);
  return { dropped: context.db, ok: 1 };
};

export const listCollections: CommandHandler = (body, context) => {
  const filter = compileFilter(optionalDocument(body, 'filter') ?? {});
  const nameOnly = body.nameOnly === true;
  const entries = context.engine
    .collections(context.db)
    .map((collection): Document => ({
      name: collection.name,
      type: 'collection',
      options: collection.options,
      info: { readOnly: false, uuid: collection.uuid },
      idIndex: ID_INDEX,
    }))
    .filter((entry) => filter.test(entry))
    .map((entry) => (nameOnly ? { name: entry.name, type: entry.type } : entry));
  const cursor = optionalDocument(body, 'cursor') ?? {};
  return context.cursors.open(`${context.db}.$cmd.listCollections`, entries, { batchSize: nonNegative(cursor, 'batchSize') });
};

export const listDatabases: CommandHandler = (body, context) => {
  const filter = compileFilter(optionalDocument(body, 'filter') ?? {});
  const databases = [...context.engine.databases.entries()]
    .map(([name, collections]): Document => {
      let docs = 0;
      for (const collection of collections.values()) docs += collection.size;
      return { name, sizeOnDisk: docs * 256, empty: docs === 0 };
    })
    .filter((entry) => filter.test(entry));
  if (body.nameOnly === true) return { databases: databases.map(({ name }) => ({ name })), ok: 1 };
  const totalSize = databases.reduce((sum, entry) => sum + (entry.sizeOnDisk as number), 0);
  return { databases, totalSize, totalSizeMb: Math.round(totalSize / 1024 / 1024), ok: 1 };
};

/** `renameCollection: 'db.from', to: 'db.to', dropTarget?` (run against admin, as MongoDB requires). */
export const renameCollection: CommandHandler = (body, context) => {
  if (context.db !== 'admin') throw new CommandError(13, 'renameCollection may only be run against the admin database.');
  const from = splitNamespace(body.renameCollection, 'renameCollection');
  const to = splitNamespace(body.to, 'to');
  const source = context.engine.collection(from.db, from.name);
  if (!source) throw new CommandError(26, `Source collection ${from.db}.${from.name} does not exist`);
  if (from.db === to.db && from.name === to.name) throw new CommandError(20, "Can't rename a collection to itself");
  if (context.engine.collection(to.db, to.name)) {
    if (body.dropTarget !== true) throw new CommandError(48, 'target namespace exists');
    context.engine.dropCollection(to.db, to.name);
  }
  context.engine.renameCollection(source, to.db, to.name);
  return { ok: 1 };
};

function splitNamespace(value: unknown, field: string): { db: string; name: string } {
  const dot = typeof value === 'string' ? value.indexOf('.') : -1;
  if (typeof value !== 'string' || dot <= 0 || dot === value.length - 1)
    throw new CommandError(73, `Invalid namespace specified in '${field}': ${String(value)}`);
  return { db: value.slice(0, dot), name: value.slice(dot + 1) };
}
