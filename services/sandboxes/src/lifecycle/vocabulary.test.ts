import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LIFECYCLE_EVENTS } from './vocabulary.js';

const readme = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'README.md'), 'utf8');

/** The README's lifecycle table: `| \`event_type\` | decision codes | meaning |` rows. */
function documentedEvents(): Map<string, string[]> {
  const start = readme.indexOf('### Lifecycle events');
  const end = readme.indexOf('\n## ', start);
  const section = readme.slice(start, end === -1 ? undefined : end);
  const rows = new Map<string, string[]>();
  for (const line of section.split('\n')) {
    const match = /^\| `([a-z_]+)` \| ([^|]*) \|/.exec(line);
    if (match?.[1])
      rows.set(
        match[1],
        [...(match[2] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? ''),
      );
  }
  return rows;
}

describe("the lifecycle vocabulary is written down in one table, the README's, and it is the code's", () => {
  test('every event type and decision code of the code is in the README table, and nothing else', () => {
    const documented = documentedEvents();
    expect([...documented.keys()].sort()).toEqual(Object.keys(LIFECYCLE_EVENTS).sort());
    for (const [type, spec] of Object.entries(LIFECYCLE_EVENTS)) {
      expect({ type, codes: documented.get(type) }).toEqual({ type, codes: [...spec.decisionCodes] });
    }
  });
});
