import { rightSideLines } from './diffLines.js';

describe('a review comment may name only a RIGHT-side line the diff shows: added or context lines of a hunk', () => {
  test('one hunk: context 10, removed, added 11, context 12', () => {
    const patch = ['@@ -10,3 +10,3 @@', ' keep', '-old', '+new', ' keep too'].join('\n');
    expect([...rightSideLines(patch)]).toEqual([10, 11, 12]);
  });

  test('two hunks; lines between them are not shown', () => {
    const patch = ['@@ -1,2 +1,3 @@', ' a', '+b', ' c', '@@ -40 +41,2 @@', '+x', ' y'].join('\n');
    expect([...rightSideLines(patch)]).toEqual([1, 2, 3, 41, 42]);
  });

  test('a new file: every line added; "\\ No newline at end of file" is not a line', () => {
    const patch = ['@@ -0,0 +1,2 @@', '+one', '+two', '\\ No newline at end of file'].join('\n');
    expect([...rightSideLines(patch)]).toEqual([1, 2]);
  });

  test('a binary or too large file (no patch) shows none', () => {
    expect(rightSideLines(null).size).toBe(0);
  });
});
