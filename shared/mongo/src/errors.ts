/** MongoDB's duplicate-key error code (E11000): a unique index refused the write. */
export const DUPLICATE_KEY = 11000;

/** True when a write failed because a unique index already holds its key. */
export function isDuplicateKey(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === DUPLICATE_KEY;
}
