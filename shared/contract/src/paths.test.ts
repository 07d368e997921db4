import { pathSegment } from './paths.js';

describe('an id as an internal path segment: percent-encoded, never a URIError', () => {
  test('a well-formed id is encodeURIComponent’s', () => {
    for (const id of ['repo_1', 'a/b', '../x', 'é 😀', '%2F', '']) expect(pathSegment(id)).toBe(encodeURIComponent(id));
  });

  test('a lone surrogate (either half, anywhere) is written as U+FFFD; a pair stays the character it makes', () => {
    expect(pathSegment('\ud800')).toBe('%EF%BF%BD');
    expect(pathSegment('a\udc00b')).toBe('a%EF%BF%BDb');
    expect(pathSegment('\udc00\ud800')).toBe('%EF%BF%BD%EF%BF%BD');
    expect(pathSegment('\ud83d\ude00')).toBe('%F0%9F%98%80');
  });
});
