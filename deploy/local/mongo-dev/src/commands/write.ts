// insert, update, delete and findAndModify. Per-statement failures become `writeErrors` (ordered
// batches stop at the first one), as MongoDB reports them; the statements before it stay applied.
import { ObjectId, type Document } from 'bson';
import { projector, selectDocs } from '../query/select.js';
import { applyUpdate, idFirst, parseUpdate, upsertDocument } from '../query/update.js';
import type { Collection } from '../storage/collection.js';
import { isPlainObject, type Doc } from '../storage/values.js';
import { checkHint, collectionName, documentArray, optionalDocument, refuseCollation, type CommandHandler } from './context.js';
import { CommandError } from './errors.js';

function runStatements(statements: Document[], ordered: boolean, run: (statement: Document, index: number) => void): Document[] {
  const writeErrors: Document[] = [];
  statements.forEach((statement, index) => {
    if (ordered && writeErrors.length > 0) return;
    try {
      if (!isPlainObject(statement)) throw new CommandError(14, `write statement ${index} must be an object`);
      run(statement, index);
    } catch (error) {
      if (!(error instanceof CommandError)) throw error;
      writeErrors.push(error.toWriteError(index));
    }
  });
  return writeErrors;
}

/** `let` variables and per-statement constants (`c`) are not wired into updates; refuse, never ignore. */
function refuseLet(body: Document, statements: Document[] = []): void {
  if (body.let !== undefined || statements.some((statement) => isPlainObject(statement) && statement.c !== undefined)) {
    throw new CommandError(238, "'let' variables in write commands are not supported by the development server");
  }
}

function withErrors(reply: Document, writeErrors: Document[]): Document {
  if (writeErrors.length > 0) reply.writeErrors = writeErrors;
  return reply;
}

export const insert: CommandHandler = (body, context) => {
  const name = collectionName(body, 'insert');
  const documents = documentArray(body, 'documents');
  const collection = context.engine.ensureCollection(context.db, name);
  let n = 0;
  const writeErrors = runStatements(documents, body.ordered !== false, (doc) => {
    context.engine.insert(collection, withId(doc));
    n++;
  });
  return withErrors({ n, ok: 1 }, writeErrors);
};

function withId(doc: Doc): Doc {
  if (doc._id === undefined) return { _id: new ObjectId(), ...doc };
  return idFirst(doc);
}

export const update: CommandHandler = (body, context) => {
  const name = collectionName(body, 'update');
  const statements = documentArray(body, 'updates');
  refuseLet(body, statements);
  let n = 0;
  let nModified = 0;
  const upserted: Document[] = [];
  const writeErrors = runStatements(statements, body.ordered !== false, (statement, index) => {
    refuseCollation(statement);
    const filter = optionalDocument(statement, 'q') ?? {};
    const spec = parseUpdate(statement.u);
    const multi = statement.multi === true;
    if (multi && spec.kind === 'replacement') throw new CommandError(9, 'multi update is not supported for replacement-style update');
    const arrayFilters = statement.arrayFilters as Document[] | undefined;
    const collection = context.engine.collection(context.db, name);
    checkHint(collection, statement.hint);
    const matches = selectDocs(collection, { filter, sort: optionalDocument(statement, 'sort'), limit: multi ? 0 : 1 });
    if (matches.length === 0) {
      if (statement.upsert !== true) return;
      const doc = upsertDocument(filter, spec, arrayFilters);
      context.engine.insert(context.engine.ensureCollection(context.db, name), doc);
      n++;
      upserted.push({ index, _id: doc._id });
      return;
    }
    for (const match of matches) {
      const result = applyUpdate(match, spec, { filter, arrayFilters });
      n++;
      if (result.modified) {
        context.engine.replace(collection as Collection, match, result.doc);
        nModified++;
      }
    }
  });
  const reply: Document = { n, nModified, ok: 1 };
  if (upserted.length > 0) reply.upserted = upserted;
  return withErrors(reply, writeErrors);
};

export const remove: CommandHandler = (body, context) => {
  const name = collectionName(body, 'delete');
  const statements = documentArray(body, 'deletes');
  refuseLet(body, statements);
  let n = 0;
  const writeErrors = runStatements(statements, body.ordered !== false, (statement) => {
    refuseCollation(statement);
    const limit = statement.limit as unknown;
    if (limit !== 0 && limit !== 1) throw new CommandError(9, `The limit field in delete objects must be 0 or 1. Got ${String(limit)}`);
    const collection = context.engine.collection(context.db, name);
    checkHint(collection, statement.hint);
    const matches = selectDocs(collection, { filter: optionalDocument(statement, 'q') ?? {}, limit });
    for (const match of matches) context.engine.remove(collection as Collection, match);
    n += matches.length;
  });
  return withErrors({ n, ok: 1 }, writeErrors);
};

export const findAndModify: CommandHandler = (body, context) => {
  const name = collectionName(body, 'findAndModify' in body ? 'findAndModify' : 'findandmodify');
  refuseCollation(body);
  refuseLet(body);
  const filter = optionalDocument(body, 'query') ?? {};
  const remove = body.remove === true;
  const returnNew = body.new === true;
  const upsert = body.upsert === true;
  if (remove && body.update !== undefined) throw new CommandError(9, 'Cannot specify both an update and remove=true');
  if (remove && (upsert || returnNew)) throw new CommandError(9, "Cannot specify either 'upsert=true' or 'new=true' with 'remove=true'");
  if (!remove && body.update === undefined) throw new CommandError(9, 'Either an update or remove=true must be specified');
  const project = projector(optionalDocument(body, 'fields'), filter);
  const show = (doc: Doc | undefined): Doc | null => (doc ? project(doc) : null);
  const collection = context.engine.collection(context.db, name);
  checkHint(collection, body.hint);
  const [match] = selectDocs(collection, { filter, sort: optionalDocument(body, 'sort'), limit: 1 });

  if (remove) {
    if (match) context.engine.remove(collection as Collection, match);
    return { lastErrorObject: { n: match ? 1 : 0 }, value: show(match), ok: 1 };
  }
  const spec = parseUpdate(body.update);
  const arrayFilters = body.arrayFilters as Document[] | undefined;
  if (match) {
    const result = applyUpdate(match, spec, { filter, arrayFilters });
    if (result.modified) context.engine.replace(collection as Collection, match, result.doc);
    return { lastErrorObject: { n: 1, updatedExisting: true }, value: show(returnNew ? result.doc : match), ok: 1 };
  }
  if (!upsert) return { lastErrorObject: { n: 0, updatedExisting: false }, value: null, ok: 1 };
  const doc = upsertDocument(filter, spec, arrayFilters);
  context.engine.insert(context.engine.ensureCollection(context.db, name), doc);
  return { lastErrorObject: { n: 1, updatedExisting: false, upserted: doc._id }, value: returnNew ? show(doc) : null, ok: 1 };
};
