// Which lines of a pull request's file a review comment may name, as GitHub decides it: a comment on
// the RIGHT side must point at a line the file's diff shows on that side, an added line or a context
// line of one of its hunks ("The line of the blob in the pull request diff that the comment applies
// to", REST docs, pull request review comments); any other line is 422 "Line could not be resolved".
// Written here from that rule, not imported from the adapter: a stand-in is the adapter's oracle.

const HUNK_HEADER = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/;

/** The RIGHT-side line numbers a unified patch shows (GitHub's `patch` of a pull request file). */
export function rightSideLines(patch: string | null): ReadonlySet<number> {
  const shown = new Set<number>();
  if (!patch) return shown;
  let line = 0;
  let remaining = 0;
  for (const text of patch.split('\n')) {
    const header = HUNK_HEADER.exec(text);
    if (header) {
      line = Number(header[1]);
      remaining = header[2] === undefined ? 1 : Number(header[2]);
      continue;
    }
    if (remaining === 0 || text.startsWith('-') || text.startsWith('\\')) continue;
    if (text.startsWith('+') || text.startsWith(' ')) {
      shown.add(line);
      line += 1;
      remaining -= 1;
    }
  }
  return shown;
}
