// find, getMore, killCursors, count, distinct and aggregate.
import type { Document } from 'bson';
import { Aggregator } from 'mingo';
import { distinctValues, projector, queryOptions, selectDocs } from '../query/select.js';
import { rewriteTypeOperators } from '../query/types.js';
import { cloneDoc, isPlainObject, type Doc } from '../storage/values.js';
import {
  checkHint,
  collectionName,
  nonNegative,
  optionalDocument,
  optionalNumber,
  refuseCollation,
  type CommandContext,
  type CommandHandler,
} from './context.js';
import { CommandError, fromMingoError } from './errors.js';

const UNSUPPORTED_FIND_OPTIONS = ['tailable', 'awaitData', 'returnKey', 'showRecordId', 'min', 'max', 'oplogReplay'];

export const find: CommandHandler = (body, context) => {
  const name = collectionName(body, 'find');
  refuseCollation(body);
  for (const option of UNSUPPORTED_FIND_OPTIONS) {
    if (body[option] !== undefined && body[option] !== false) throw new CommandError(238, `find option '${option}' is not supported by the development server`);
  }
  const filter = optionalDocument(body, 'filter') ?? {};
  const projection = optionalDocument(body, 'projection');
  let limit = optionalNumber(body, 'limit');
  let singleBatch = body.singleBatch === true;
  if (limit !== undefined && limit < 0) {
    limit = -limit;
    singleBatch = true;
  }
  const collection = context.engine.collection(context.db, name);
  checkHint(collection, body.hint);
  const docs = selectDocs(collection, {
    filter,
    sort: optionalDocument(body, 'sort'),
    skip: nonNegative(body, 'skip'),
    limit,
    variables: optionalDocument(body, 'let'),
  });
  const batchSize = nonNegative(body, 'batchSize');
  return context.cursors.open(`${context.db}.${name}`, docs, { batchSize, singleBatch, map: projector(projection, filter) });
};

export const getMore: CommandHandler = (body, context) => {
  const id = body.getMore as unknown;
  const cursorId = typeof id === 'number' ? id : typeof id === 'bigint' ? Number(id) : isLong(id) ? id.toNumber() : NaN;
  if (!Number.isFinite(cursorId)) throw new CommandError(14, "BSON field 'getMore' is the wrong type, expected type 'long'");
  const collection = typeof body.collection === 'string' ? body.collection : '';
  return context.cursors.getMore(cursorId, collection, context.db, nonNegative(body, 'batchSize'));
};

export const killCursors: CommandHandler = (body, context) => {
  const ids = Array.isArray(body.cursors) ? body.cursors : [];
  return context.cursors.kill(ids.map((id: unknown) => (isLong(id) ? id.toNumber() : Number(id))));
};

export const count: CommandHandler = (body, context) => {
  const name = collectionName(body, 'count');
  refuseCollation(body);
  const query = optionalDocument(body, 'query') ?? {};
  const collection = context.engine.collection(context.db, name);
  checkHint(collection, body.hint);
  let limit = optionalNumber(body, 'limit') ?? 0;
  if (limit < 0) limit = -limit;
  const skip = nonNegative(body, 'skip') ?? 0;
  if (collection && Object.keys(query).length === 0) {
    const n = Math.max(0, collection.size - skip);
    return { n: limit > 0 ? Math.min(limit, n) : n, ok: 1 };
  }
  return { n: selectDocs(collection, { filter: query, skip, limit }).length, ok: 1 };
};

export const distinct: CommandHandler = (body, context) => {
  const name = collectionName(body, 'distinct');
  refuseCollation(body);
  const key = body.key as unknown;
  if (typeof key !== 'string') throw new CommandError(14, "BSON field 'distinct.key' is missing or is not a string");
  const docs = selectDocs(context.engine.collection(context.db, name), { filter: optionalDocument(body, 'query') ?? {} });
  return { values: distinctValues(docs, key), ok: 1 };
};

/** Stages that write or need server internals; named in the error instead of half-working. */
const UNSUPPORTED_STAGES = new Set([
  '$out',
  '$merge',
  '$changeStream',
  '$changeStreamSplitLargeEvent',
  '$collStats',
  '$indexStats',
  '$currentOp',
  '$listSessions',
  '$listLocalSessions',
  '$planCacheStats',
  '$search',
  '$searchMeta',
  '$vectorSearch',
  '$geoNear',
  '$listSearchIndexes',
  '$documents',
]);

export const aggregate: CommandHandler = (body, context) => {
  const target = body.aggregate as unknown;
  if (typeof target !== 'string') throw new CommandError(238, 'database-level aggregate ({aggregate: 1}) is not supported by the development server');
  if (body.explain) throw new CommandError(238, 'explain is not supported by the development server');
  refuseCollation(body);
  const pipeline = body.pipeline as unknown;
  if (!Array.isArray(pipeline)) throw new CommandError(14, "'pipeline' option must be specified as an array");
  const cursorOptions = optionalDocument(body, 'cursor');
  if (!cursorOptions) throw new CommandError(9, "The 'cursor' option is required, except for aggregate with the explain argument");
  checkStages(pipeline as Document[]);
  checkHint(context.engine.collection(context.db, target), body.hint);
  const result = runPipeline(context, target, pipeline as Document[], optionalDocument(body, 'let'));
  const batchSize = nonNegative(cursorOptions, 'batchSize');
  return context.cursors.open(`${context.db}.${target}`, result, { batchSize });
};

function checkStages(pipeline: Document[]): void {
  for (const stage of pipeline) {
    if (!isPlainObject(stage) || Object.keys(stage).length !== 1) {
      throw new CommandError(40323, 'A pipeline stage specification object must contain exactly one field.');
    }
    const name = Object.keys(stage)[0] as string;
    if (UNSUPPORTED_STAGES.has(name)) throw new CommandError(238, `${name} is not supported by the development server`);
    if (name === '$lookup' || name === '$facet' || name === '$unionWith') {
      const spec = stage[name] as unknown;
      const inner = name === '$facet' ? Object.values(spec as Document) : isPlainObject(spec) ? [spec.pipeline] : [];
      for (const sub of inner) if (Array.isArray(sub)) checkStages(sub as Document[]);
    }
  }
}

function runPipeline(context: CommandContext, name: string, pipeline: Document[], variables: Document | undefined): Doc[] {
  const collection = context.engine.collection(context.db, name);
  // A leading $match goes through the indexes instead of scanning inside mingo.
  let input: Doc[];
  let rest = pipeline;
  const first = pipeline[0];
  if (first && isPlainObject(first.$match)) {
    input = selectDocs(collection, { filter: first.$match as Document, variables });
    rest = pipeline.slice(1);
  } else {
    input = collection ? [...collection.docs.values()] : [];
  }
  if (rest.length === 0) return input;
  const options = {
    ...queryOptions(variables),
    collectionResolver: (other: string) => [...(context.engine.collection(context.db, other)?.docs.values() ?? [])].map(cloneDoc),
  };
  try {
    const stages = rest.map((stage) => ('$match' in stage ? { $match: rewriteTypeOperators(stage.$match) } : stage));
    return new Aggregator(stages, options).run(input.map(cloneDoc)) as Doc[];
  } catch (error) {
    throw fromMingoError(error);
  }
}

function isLong(value: unknown): value is { toNumber(): number } {
  return typeof value === 'object' && value !== null && (value as { _bsontype?: unknown })._bsontype === 'Long';
}
