/** MongoDB's duplicate-key error code (E11000): a unique index refused the write. */
export const DUPLICATE_KEY = 11000;

/** True when a write failed because a unique index already holds its key. */
export function isDuplicateKey(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === DUPLICATE_KEY;
}

/**
 * True when an unordered bulk write (`insertMany` with `ordered: false`) failed only on keys already
 * present: each of its write errors is E11000, and no write-concern error.
 */
export function onlyDuplicateKeys(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { writeErrors, writeConcernError } = error as { writeErrors?: unknown; writeConcernError?: unknown };
  if (writeConcernError) return false;
  const errors = Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : [error];
  return errors.length > 0 && errors.every(isDuplicateKey);
}
