/** Where a page of a newest-first list ended: the last item's creation time and id (ties broken by id). */
export interface ListPosition {
  createdAt: Date;
  id: string;
}

/**
 * The opaque `cursor`/`nextCursor` of `GET /automations`: the position as base64url JSON. Clients
 * send it back unchanged; its form is not a contract and may change.
 */
export function encodeCursor(position: ListPosition): string {
  return Buffer.from(JSON.stringify([position.createdAt.getTime(), position.id]), 'utf8').toString('base64url');
}

/** The position of a cursor this service made, or null for anything else. */
export function decodeCursor(cursor: string): ListPosition | null {
  if (cursor.length > 600 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) return null;
  const [time, id] = parsed as unknown[];
  if (typeof time !== 'number' || !Number.isSafeInteger(time) || typeof id !== 'string' || id === '') return null;
  const createdAt = new Date(time);
  return Number.isNaN(createdAt.getTime()) ? null : { createdAt, id };
}
