/** Repositories as the contract names them (the shape, `Repo`, is @ars/contract's). */

export const REPO_LIMIT = { min: 1, max: 200, default: 100, name: 'limit' } as const;

/**
 * `q` is a case-insensitive substring of `owner/repo`; returned as a literal (escaped) pattern.
 * Control characters are written as `\xHH` escapes: a NUL cannot stand in a BSON regular
 * expression (the driver refuses to send it), and none matches a repository name anyway.
 */
export function substringPattern(q: string): RegExp {
  const escaped = q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const literal = Array.from(escaped, (c) => (isControl(c) ? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}` : c)).join('');
  return new RegExp(literal, 'i');
}

/** C0 controls, DEL and C1 controls. */
function isControl(c: string): boolean {
  const code = c.charCodeAt(0);
  return code < 0x20 || (code >= 0x7f && code <= 0x9f);
}
