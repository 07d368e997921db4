// test/README.md names every suite that starts a system of its own, and why; a new suite gets the
// shared one unless it says why not. The table and the tree must agree both ways.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;
const WORKSPACE_ROOTS = ['clients', 'deploy', 'services', 'shared', 'test'];
/** What starts a whole system for one file: the kit's own system, a stack, or `npm start`. */
const STARTS_ITS_OWN = /\bownSystem\(|\bstartSystem\(|\bstartStack\(|spawn\('npm', \['start'/;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** The suites the README's table lists, with their reasons. */
function listedSuites(): Map<string, string> {
  const readme = readFileSync(join(root, 'test/README.md'), 'utf8');
  const section = /^## Systems: [^\n]*\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1] ?? '';
  return new Map([...section.matchAll(/^\| `([^`]+\.test\.ts)` \| (.+) \|$/gm)].map((row) => [row[1] ?? '', (row[2] ?? '').trim()]));
}

describe('a suite with a system of its own is named in test/README.md with why', () => {
  const startingTheirOwn = WORKSPACE_ROOTS.flatMap((dir) => testFiles(join(root, dir)))
    .filter((file) => STARTS_ITS_OWN.test(readFileSync(file, 'utf8')))
    .map((file) => relative(root, file))
    .filter((file) => file !== 'test/docs/testSystems.test.ts')
    .sort();
  const listed = listedSuites();

  test('every suite that starts a system of its own is in the table, with a reason', () => {
    expect(startingTheirOwn.length).toBeGreaterThan(0);
    expect(startingTheirOwn.filter((file) => !listed.get(file))).toEqual([]);
  });

  test('every suite in the table still starts one (no stale rows)', () => {
    expect([...listed.keys()].filter((file) => !startingTheirOwn.includes(file))).toEqual([]);
  });
});

describe('a stack a suite starts has a Kafka and a MongoDB of its own, never the run’s', () => {
  // Its services join the default consumer groups (`sandboxes`, `runs`): on the run's Kafka they take
  // other suites' messages (a stack's sandboxes once failed another suite's runs, "the repository was
  // not found for this user"). `ownSystem` and `startSystem` start their own; so must `startStack`.
  test('no test file hands startStack the run’s Kafka brokers or MongoDB URL', () => {
    const sharing = WORKSPACE_ROOTS.flatMap((dir) => testFiles(join(root, dir)))
      .filter((file) => file !== join(root, 'test/docs/testSystems.test.ts'))
      .filter((file) => {
        const source = readFileSync(file, 'utf8');
        return /\bstartStack\(/.test(source) && /\b(kafkaBrokers|mongoUrl):/.test(source);
      })
      .map((file) => relative(root, file));
    expect(sharing).toEqual([]);
  });
});
