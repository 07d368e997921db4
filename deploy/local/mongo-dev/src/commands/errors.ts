// MongoDB's own error codes and names, so the driver raises MongoServerError with the code a real
// server would give (the services branch on `code === 11000`, 26, and so on).
import type { Document } from 'bson';

export const CODE_NAMES: Record<number, string> = {
  1: 'InternalError',
  2: 'BadValue',
  9: 'FailedToParse',
  13: 'Unauthorized',
  14: 'TypeMismatch',
  20: 'IllegalOperation',
  22: 'InvalidBSON',
  26: 'NamespaceNotFound',
  27: 'IndexNotFound',
  28: 'PathNotViable',
  40: 'ConflictingUpdateOperators',
  43: 'CursorNotFound',
  48: 'NamespaceExists',
  59: 'CommandNotFound',
  66: 'ImmutableField',
  67: 'CannotCreateIndex',
  72: 'InvalidOptions',
  73: 'InvalidNamespace',
  85: 'IndexOptionsConflict',
  86: 'IndexKeySpecsConflict',
  115: 'CommandNotSupported',
  168: 'InvalidPipelineOperator',
  171: 'CannotIndexParallelArrays',
  197: 'InvalidIndexSpecificationOption',
  238: 'NotImplemented',
  352: 'UnsupportedOpQueryCommand',
  10334: 'BSONObjectTooLarge',
  11000: 'DuplicateKey',
  40324: 'Location40324',
};

/** An error a command reports to its client as `{ok: 0, code, codeName, errmsg}` (or as a write error). */
export class CommandError extends Error {
  constructor(
    readonly code: number,
    message: string,
    /** Extra reply fields, e.g. `keyPattern`/`keyValue` of a duplicate key. */
    readonly extra: Document = {},
  ) {
    super(message);
  }

  get codeName(): string {
    return CODE_NAMES[this.code] ?? `Location${this.code}`;
  }

  toReply(): Document {
    return { ok: 0, errmsg: this.message, code: this.code, codeName: this.codeName, ...this.extra };
  }

  toWriteError(index: number): Document {
    return { index, code: this.code, errmsg: this.message, ...this.extra };
  }
}

export const badValue = (message: string): CommandError => new CommandError(2, message);
export const typeMismatch = (message: string): CommandError => new CommandError(14, message);
export const failedToParse = (message: string): CommandError => new CommandError(9, message);

/** Translates mingo's error messages into the code and wording MongoDB uses for the same mistake. */
export function fromMingoError(error: unknown): CommandError {
  if (error instanceof CommandError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (/scriptEnabled/.test(message)) {
    return new CommandError(238, `server-side JavaScript ($where, $function, $accumulator) is not supported by the development server`);
  }
  if (/Cannot do exclusion and inclusion in projection/.test(message)) {
    return new CommandError(31254, 'Cannot do exclusion and inclusion in the same projection (except for _id)');
  }
  let match = /unknown (?:query|top level) operator:? (\$\w+)/i.exec(message);
  if (match) return badValue(`unknown operator: ${match[1]}`);
  match = /Unknown update operator: '?(\$\w+)/i.exec(message);
  if (match) return failedToParse(`Unknown modifier: ${match[1]}. Expected a valid update modifier or pipeline-style update specified as an array`);
  match = /unregistered pipeline operator (\$\w+)/i.exec(message);
  if (match) return new CommandError(40324, `Unrecognized pipeline stage name: '${match[1]}'`);
  match =
    /(?:unregistered|unknown|invalid) (?:expression|accumulator|window|projection) operator:? '?(\$\w+)/i.exec(message) ??
    /'(\$\w+)' is not registered/.exec(message);
  if (match) return new CommandError(168, `Unrecognized expression '${match[1]}'`);
  return badValue(message);
}
