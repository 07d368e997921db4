/**
 * The new-side lines a file's patch shows (context and added lines of every hunk): the lines a
 * review comment may point at. GitHub refuses a comment on any other line (422).
 */
export function commentableLines(patch: string | null): Set<number> {
  const lines = new Set<number>();
  if (patch === null) return lines;
  let next = 0;
  let inHunk = false;
  for (const line of patch.split('\n')) {
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (hunk) {
      next = Number(hunk[1]);
      inHunk = true;
      continue;
    }
    if (!inHunk || line.startsWith('\\')) continue;
    if (line.startsWith('+') || line.startsWith(' ')) {
      lines.add(next);
      next += 1;
    }
  }
  return lines;
}
