// What every command handler receives, and small argument readers with MongoDB's error wording.
import type { Document } from 'bson';
import type { Collection } from '../storage/collection.js';
import type { Engine } from '../storage/engine.js';
import { valueKey } from '../storage/values.js';
import type { CursorStore } from './cursors.js';
import { CommandError } from './errors.js';

export interface ServerInfo {
  startedAt: Date;
  host: string;
  port: number;
  dbpath: string | undefined;
  /** Open client connections. */
  connections(): number;
}

export interface CommandContext {
  engine: Engine;
  cursors: CursorStore;
  db: string;
  connectionId: number;
  /** How the command arrived: hello over OP_QUERY answers `ismaster`, over OP_MSG `isWritablePrimary`. */
  via: 'msg' | 'query';
  server: ServerInfo;
}

export type CommandHandler = (body: Document, context: CommandContext) => Document;

/** The collection named by the command's first field. */
export function collectionName(body: Document, command: string): string {
  const name = body[command] as unknown;
  if (typeof name !== 'string') throw new CommandError(73, `collection name has invalid type ${name === null ? 'null' : typeof name}`);
  if (name === '') throw new CommandError(73, `Invalid namespace specified '${name}'`);
  return name;
}

export function optionalDocument(body: Document, field: string): Document | undefined {
  const value = body[field] as unknown;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new CommandError(14, `BSON field '${field}' is the wrong type '${Array.isArray(value) ? 'array' : typeof value}', expected type 'object'`);
  }
  return value as Document;
}

export function optionalNumber(body: Document, field: string): number | undefined {
  const value = body[field] as unknown;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new CommandError(14, `BSON field '${field}' is the wrong type '${typeof value}', expected a number`);
  }
  return value;
}

export function nonNegative(body: Document, field: string): number | undefined {
  const value = optionalNumber(body, field);
  if (value !== undefined && value < 0) throw new CommandError(2, `${field} value must be non-negative, but received: ${value}`);
  return value === undefined ? undefined : Math.trunc(value);
}

export function documentArray(body: Document, field: string): Document[] {
  const value = body[field] as unknown;
  if (!Array.isArray(value)) throw new CommandError(14, `BSON field '${field}' is missing or is not an array`);
  return value as Document[];
}

/** Only the simple (binary) collation is implemented; anything else would sort and match differently. */
export function refuseCollation(body: Document): void {
  const collation = body.collation as unknown;
  if (collation === undefined || collation === null) return;
  if (typeof collation === 'object' && (collation as Document).locale === 'simple') return;
  throw new CommandError(238, 'collation is not supported by the development server');
}

/**
 * A hint must name an existing index (as MongoDB checks); it never changes the result here, but
 * accepting a wrong one would hide a mistake a real server reports.
 */
export function checkHint(collection: Collection | undefined, hint: unknown): void {
  if (hint === undefined || hint === null || !collection) return;
  const specs = collection.indexSpecs();
  if (typeof hint === 'string') {
    if (specs.some((spec) => spec.name === hint)) return;
  } else if (typeof hint === 'object' && !Array.isArray(hint)) {
    const keys = Object.keys(hint as Document);
    if (keys.length === 0 || (keys.length === 1 && keys[0] === '$natural')) return;
    const wanted = valueKey(hint);
    if (specs.some((spec) => valueKey(spec.key) === wanted)) return;
  }
  throw new CommandError(2, 'hint provided does not correspond to an existing index');
}
