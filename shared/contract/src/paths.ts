/** A code unit of a surrogate pair standing alone: JSON can carry it (`"\ud800"`), UTF-8 cannot. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * A caller's id as one segment of an internal path. Ids reach the internal calls from outside (a
 * body's `repoId`, a tool's arguments), and a JSON string need not be well-formed Unicode:
 * `encodeURIComponent` throws a URIError on a lone surrogate, which turned a caller's mistake into
 * a 500 (issue 32). Each lone surrogate is written as U+FFFD instead, so the id names nothing and
 * its owner answers as for any unknown id (NOT_FOUND).
 */
export function pathSegment(id: string): string {
  return encodeURIComponent(id.replace(LONE_SURROGATE, '\uFFFD'));
}
