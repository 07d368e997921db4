import { commentableLines } from './diffLines.js';

describe('a review comment may point only at a new-side line the patch shows: context and added lines of every hunk', () => {
  test('two hunks: removed lines take no new-side number, “\\ No newline” is not a line', () => {
    const patch = ['@@ -1,3 +1,3 @@', ' a', '-b', '+B', ' c', '@@ -10,2 +10,3 @@', ' j', '+k', ' l', '\\ No newline at end of file'].join('\n');
    expect([...commentableLines(patch)]).toEqual([1, 2, 3, 10, 11, 12]);
  });

  test('an added file’s single-line hunk (no count) and a binary file (no patch)', () => {
    expect([...commentableLines('@@ -0,0 +1 @@\n+x')]).toEqual([1]);
    expect(commentableLines(null).size).toBe(0);
  });
});
