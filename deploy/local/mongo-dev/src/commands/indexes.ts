// createIndexes, listIndexes, dropIndexes.
import type { Document } from 'bson';
import { normaliseIndexSpec, sameIndexDefinition, type IndexSpec } from '../storage/indexes.js';
import { valueKey } from '../storage/values.js';
import { collectionName, documentArray, nonNegative, optionalDocument, type CommandHandler } from './context.js';
import { CommandError } from './errors.js';

export const createIndexes: CommandHandler = (body, context) => {
  const name = collectionName(body, 'createIndexes');
  const specs = documentArray(body, 'indexes').map(normaliseIndexSpec);
  if (specs.length === 0) throw new CommandError(2, 'Must specify at least one index to create');
  const existed = context.engine.collection(context.db, name) !== undefined;
  const collection = context.engine.ensureCollection(context.db, name);
  const numIndexesBefore = collection.indexes.size + 1;
  const toCreate: IndexSpec[] = [];
  for (const spec of specs) {
    if (spec.name === '_id_' || valueKey(spec.key) === valueKey({ _id: 1 })) {
      if (spec.name !== '_id_' && spec.name !== '_id_1') throw new CommandError(85, `Index already exists with a different name: _id_`);
      continue;
    }
    const sameName = collection.indexes.get(spec.name)?.spec ?? toCreate.find((other) => other.name === spec.name);
    if (sameName) {
      const shown = `Requested index: ${JSON.stringify(spec)}, existing index: ${JSON.stringify(sameName)}`;
      if (valueKey(sameName.key) !== valueKey(spec.key)) {
        throw new CommandError(
          86,
          `An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. ${shown}`,
        );
      }
      if (!sameIndexDefinition(sameName, spec) || sameName.expireAfterSeconds !== spec.expireAfterSeconds) {
        throw new CommandError(85, `An equivalent index already exists with the same name but different options. ${shown}`);
      }
      continue;
    }
    const sameDefinition = [...collection.indexes.values()].find((index) => sameIndexDefinition(index.spec, spec));
    if (sameDefinition) throw new CommandError(85, `Index already exists with a different name: ${sameDefinition.name}`);
    toCreate.push(spec);
  }
  // All or nothing: an index that cannot be built (duplicates) leaves none of this command's behind.
  const created: string[] = [];
  try {
    for (const spec of toCreate) {
      context.engine.createIndex(collection, spec);
      created.push(spec.name);
    }
  } catch (error) {
    for (const indexName of created) context.engine.dropIndex(collection, indexName);
    throw error;
  }
  const reply: Document = { numIndexesBefore, numIndexesAfter: collection.indexes.size + 1, createdCollectionAutomatically: !existed, ok: 1 };
  if (toCreate.length === 0) reply.note = 'all indexes already exist';
  return reply;
};

export const listIndexes: CommandHandler = (body, context) => {
  const name = collectionName(body, 'listIndexes');
  const collection = context.engine.collection(context.db, name);
  if (!collection) throw new CommandError(26, `ns does not exist: ${context.db}.${name}`);
  const cursor = optionalDocument(body, 'cursor') ?? {};
  return context.cursors.open(`${context.db}.${name}`, collection.indexSpecs(), { batchSize: nonNegative(cursor, 'batchSize') });
};

export const dropIndexes: CommandHandler = (body, context) => {
  const name = collectionName(body, 'dropIndexes' in body ? 'dropIndexes' : 'deleteIndexes');
  const collection = context.engine.collection(context.db, name);
  if (!collection) throw new CommandError(26, `ns not found ${context.db}.${name}`);
  const nIndexesWas = collection.indexes.size + 1;
  const target = body.index as unknown;
  let names: string[];
  if (target === '*') {
    names = [...collection.indexes.keys()];
  } else if (typeof target === 'string') {
    names = [target];
  } else if (Array.isArray(target)) {
    names = target.map(String);
  } else if (target !== null && typeof target === 'object') {
    const found = [...collection.indexes.values()].find((index) => valueKey(index.spec.key) === valueKey(target));
    if (!found) throw new CommandError(27, `can't find index with key: ${JSON.stringify(target)}`);
    names = [found.name];
  } else {
    throw new CommandError(14, "BSON field 'dropIndexes.index' is missing or has the wrong type");
  }
  for (const indexName of names) {
    if (indexName === '_id_') throw new CommandError(72, 'cannot drop _id index');
    if (!collection.indexes.has(indexName)) throw new CommandError(27, `index not found with name [${indexName}]`);
  }
  for (const indexName of names) context.engine.dropIndex(collection, indexName);
  return { nIndexesWas, ok: 1 };
};

const COLLMOD_FIELDS = new Set([
  'collMod',
  'index',
  'writeConcern',
  'lsid',
  '$db',
  '$clusterTime',
  '$readPreference',
  'comment',
  'maxTimeMS',
  'apiVersion',
  'apiStrict',
  'apiDeprecationErrors',
]);

/** `collMod` for what indexes need: a TTL index's `expireAfterSeconds` and `hidden`. */
export const collMod: CommandHandler = (body, context) => {
  const name = collectionName(body, 'collMod');
  for (const field of Object.keys(body)) {
    if (!COLLMOD_FIELDS.has(field)) throw new CommandError(238, `collMod option '${field}' is not supported by the development server`);
  }
  const collection = context.engine.collection(context.db, name);
  if (!collection) throw new CommandError(26, `ns does not exist: ${context.db}.${name}`);
  const change = optionalDocument(body, 'index');
  if (!change) return { ok: 1 };
  const index =
    typeof change.name === 'string'
      ? collection.indexes.get(change.name)
      : [...collection.indexes.values()].find((candidate) => valueKey(candidate.spec.key) === valueKey(change.keyPattern));
  if (!index) throw new CommandError(27, `cannot find index ${JSON.stringify(change.name ?? change.keyPattern)} for ns ${collection.ns}`);
  const spec: IndexSpec = { ...index.spec };
  const reply: Document = { ok: 1 };
  for (const [option, value] of Object.entries(change)) {
    if (option === 'name' || option === 'keyPattern') continue;
    if (option === 'expireAfterSeconds') {
      if (spec.expireAfterSeconds === undefined) throw new CommandError(72, 'no expireAfterSeconds field to update');
      if (typeof value !== 'number' || value < 0) throw new CommandError(2, 'expireAfterSeconds must be a non-negative number');
      reply.expireAfterSeconds_old = spec.expireAfterSeconds;
      reply.expireAfterSeconds_new = value;
      spec.expireAfterSeconds = value;
    } else if (option === 'hidden') {
      reply.hidden_old = spec.hidden === true;
      reply.hidden_new = value === true;
      if (value === true) spec.hidden = true;
      else delete spec.hidden;
    } else {
      throw new CommandError(238, `collMod index option '${option}' is not supported by the development server`);
    }
  }
  context.engine.createIndex(collection, spec); // same name: rebuilt in place, keeping its position
  return reply;
};
