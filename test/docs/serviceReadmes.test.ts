// A newcomer finds where a rule lives from the service README's layout: it must match the tree.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;
const services = readdirSync(join(root, 'services'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(root, 'services', entry.name, 'package.json')))
  .map((entry) => entry.name);

/** The text of the README's `## Layout` section, or undefined when it has none. */
function layoutSection(readme: string): string | undefined {
  const match = /^## Layout[^\n]*\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(readme);
  return match?.[1];
}

/** What sits directly in src/: folders as `name/`, files as `name.ts` (tests are beside what they test, not listed). */
function sourceEntries(service: string): string[] {
  return readdirSync(join(root, 'services', service, 'src'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() || (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')))
    .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name));
}

/** `src/...` paths the section names (a trailing `/` is a folder). */
function namedPaths(section: string): string[] {
  return [...section.matchAll(/(?<![\w./-])src\/[\w./-]*[\w/]/g)].map((match) => match[0]);
}

describe("each service README's layout section matches the tree", () => {
  test.each(services)('%s: a Layout section names every folder and file directly under src/', (service) => {
    const section = layoutSection(readFileSync(join(root, 'services', service, 'README.md'), 'utf8'));
    expect(section).toBeDefined();
    const missing = sourceEntries(service).filter((entry) => !new RegExp(`(^|[\\s\`(/])${entry.replace(/[.]/g, '\\.')}`, 'm').test(section ?? ''));
    expect(missing).toEqual([]);
  });

  test.each(services)('%s: every src/ path the Layout section names exists', (service) => {
    const section = layoutSection(readFileSync(join(root, 'services', service, 'README.md'), 'utf8')) ?? '';
    const absent = namedPaths(section).filter((path) => !existsSync(join(root, 'services', service, path)));
    expect(absent).toEqual([]);
  });
});
