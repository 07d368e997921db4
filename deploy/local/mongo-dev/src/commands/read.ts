// find, getMore, killCursors, count, distinct and aggregate.
import type { Document } from 'bson';
import { Aggregator } from 'mingo/aggregator';
import { queryOptions } from '../query/mingo.js';
import { distinctValues, projector, selectDocs } from '../query/select.js';
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
  let docs: Doc[];
  let rest = pipeline;
  const first = pipeline[0];
  if (first && isPlainObject(first.$match)) {
    docs = selectDocs(collection, { filter: first.$match as Document, variables });
    rest = pipeline.slice(1);
  } else {
    docs = collection ? [...collection.docs.values()] : [];
  }
  // Equality $lookups are joined here through the foreign collection's indexes; mingo runs the stages
  // between them (its own $lookup copies the whole foreign collection for every call).
  let segment: Document[] = [];
  let cloned = false;
  for (const stage of rest) {
    const lookup = equalityLookup(stage);
    if (!lookup) {
      segment.push(stage);
      continue;
    }
    docs = runStages(context, segment, cloned ? docs : docs.map(cloneDoc), variables);
    cloned = true;
    segment = [];
    docs = joinByEquality(context, docs, lookup);
  }
  if (segment.length === 0) return docs;
  return runStages(context, segment, cloned ? docs : docs.map(cloneDoc), variables);
}

function runStages(context: CommandContext, stages: Document[], docs: Doc[], variables: Document | undefined): Doc[] {
  if (stages.length === 0) return docs;
  const options = {
    ...queryOptions(variables),
    collectionResolver: (other: string) => [...(context.engine.collection(context.db, other)?.docs.values() ?? [])].map(cloneDoc),
  };
  try {
    const rewritten = stages.map((stage) => ('$match' in stage ? { $match: rewriteTypeOperators(stage.$match) } : stage));
    return new Aggregator(rewritten, options).run(docs) as Doc[];
  } catch (error) {
    throw fromMingoError(error);
  }
}

interface EqualityLookup {
  from: string;
  localField: string;
  foreignField: string;
  as: string;
}

/** A `$lookup` of the equality form (`from`, `localField`, `foreignField`, a top-level `as`; no `let` or `pipeline`). */
function equalityLookup(stage: Document): EqualityLookup | null {
  const spec = stage.$lookup as unknown;
  if (!isPlainObject(spec)) return null;
  const { from, localField, foreignField, as } = spec;
  const keys = Object.keys(spec);
  if (keys.length !== 4 || typeof from !== 'string' || typeof localField !== 'string' || typeof foreignField !== 'string' || typeof as !== 'string')
    return null;
  if (as.includes('.') || as.startsWith('$') || localField.startsWith('$') || foreignField.startsWith('$')) return null;
  return { from, localField, foreignField, as };
}

/**
 * MongoDB's equality join: each document gets `as`, the foreign documents whose `foreignField`
 * equals its `localField` (any element of either, when an array; a missing or null local value
 * matches a foreign field that is null or missing).
 */
function joinByEquality(context: CommandContext, docs: Doc[], lookup: EqualityLookup): Doc[] {
  const foreign = context.engine.collection(context.db, lookup.from);
  return docs.map((doc) => {
    const values = valuesAt(doc, lookup.localField.split('.'));
    const present = values.filter((value) => value !== undefined && value !== null);
    const filter = present.length === 0 ? { [lookup.foreignField]: null } : { [lookup.foreignField]: { $in: values.map((value) => value ?? null) } };
    return { ...doc, [lookup.as]: selectDocs(foreign, { filter }).map(cloneDoc) };
  });
}

/** The values at a dotted path, through arrays (each element of an array on the way, and each of an array at the end). */
function valuesAt(value: unknown, path: string[]): unknown[] {
  if (path.length === 0) return Array.isArray(value) ? value : [value];
  if (Array.isArray(value)) return value.flatMap((element) => valuesAt(element, path));
  if (!isPlainObject(value)) return [undefined];
  const [head, ...tail] = path;
  return valuesAt(value[head as string], tail);
}

function isLong(value: unknown): value is { toNumber(): number } {
  return typeof value === 'object' && value !== null && (value as { _bsontype?: unknown })._bsontype === 'Long';
}
