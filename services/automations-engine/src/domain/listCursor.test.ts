import { decodeCursor, encodeCursor } from './listCursor.js';

describe('a list cursor is opaque and names the position where the page ended', () => {
  test('what encodeCursor makes, decodeCursor reads back', () => {
    const position = { createdAt: new Date('2026-01-02T03:04:05.678Z'), id: 'a1b2' };
    const cursor = encodeCursor(position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor)).toEqual(position);
  });

  test.each([
    ['not base64url', 'a cursor!'],
    ['not JSON', Buffer.from('nope').toString('base64url')],
    ['the wrong shape', Buffer.from('{"createdAt":1,"id":"x"}').toString('base64url')],
    ['an empty id', Buffer.from('[1,""]').toString('base64url')],
    ['a time that is not an integer', Buffer.from('[1.5,"x"]').toString('base64url')],
    ['a time out of range', Buffer.from('[9007199254740991,"x"]').toString('base64url')],
    ['too long', 'a'.repeat(601)],
  ])('a cursor this service did not make is refused: %s', (_label, cursor) => {
    expect(decodeCursor(cursor)).toBeNull();
  });
});
