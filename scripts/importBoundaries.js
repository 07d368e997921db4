// The import boundaries between workspaces, as `no-restricted-imports` blocks for eslint.config.js.
// Three rules:
//   1. a service's production sources (services/*/src, not tests, not testing/) import no
//      development infrastructure (every deploy/local package, @ars/testenv);
//   2. no file reaches into another workspace by a relative path;
//   3. a service imports another service only through its `./client` entry point (tests and
//      testing/ also through `./testing`).
// A flat config keeps only the last matching block's options for a rule, so each block carries
// every pattern that applies to its files. Rule 2 depends on how deep a file sits in its workspace,
// hence one block per workspace and depth. Workspaces are read from package.json, so a new service
// or package is covered without editing this file.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const SOURCE = '*.{ts,mts,cts,js,mjs,cjs}';
const TEST_FILES = '{**/*.test.ts,**/testing/**,**/testing.ts}';
const DEEPEST = 8;

/** Every workspace: its folder (relative to the root) and its package name. */
export function workspaces(root) {
  const globs = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).workspaces;
  return globs
    .flatMap((glob) =>
      glob.endsWith('/*')
        ? readdirSync(join(root, glob.slice(0, -2)), { withFileTypes: true })
            .filter((entry) => entry.isDirectory())
            .map((entry) => `${glob.slice(0, -2)}/${entry.name}`)
        : [glob],
    )
    .filter((dir) => existsSync(join(root, dir, 'package.json')))
    .map((dir) => ({ dir, name: JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')).name }));
}

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

function developmentInfrastructure(all) {
  const names = [...all.filter((w) => w.dir.startsWith('deploy/local/')).map((w) => w.name), '@ars/testenv'];
  return {
    regex: `^(${names.map(escape).join('|')})(/.*)?$`,
    message:
      'Development infrastructure (deploy/local packages, @ars/testenv) is for tests and src/testing/ only: a service must not need it to run. Move what production code needs into a shared/ package.',
  };
}

function climbingOut(depth) {
  return {
    regex: `^(\\./)?(\\.\\./){${depth}}\\.\\.(/|$)`,
    message:
      "A relative import must not leave its workspace. Import the other package by its name, through an entry point it exports (e.g. '@ars/catalog/testing'), and declare it in package.json.",
  };
}

function otherServices(all, self, allowTesting) {
  const names = all.filter((w) => w.dir.startsWith('services/') && w.name !== self).map((w) => w.name);
  const allowed = allowTesting ? '(client|testing)' : 'client';
  return {
    regex: `^(${names.map(escape).join('|')})(?!/${allowed}$)(/.*)?$`,
    message: allowTesting
      ? "Another service is reached only through its entry points: '@ars/<service>/client' (its typed client) or, in tests and testing/, '@ars/<service>/testing'. Its sources are its own."
      : "Another service is reached only through its typed client, '@ars/<service>/client'. Its sources are its own.",
  };
}

function block(files, patterns, ignores) {
  return { files, ...(ignores ? { ignores } : {}), rules: { 'no-restricted-imports': ['error', { patterns }] } };
}

/** The config blocks of the three rules, for every workspace under `root`. */
export function importBoundaries(root) {
  const all = workspaces(root);
  const infrastructure = developmentInfrastructure(all);
  const blocks = [];
  for (const workspace of all) {
    const service = workspace.dir.startsWith('services/');
    for (let depth = 0; depth <= DEEPEST; depth++) {
      const files = `${workspace.dir}/${'*/'.repeat(depth)}${SOURCE}`;
      const climb = climbingOut(depth);
      if (!service) {
        blocks.push(block([files], [climb]));
        continue;
      }
      // The last matching block wins: any file, then src/, then tests and testing/.
      const throughClient = otherServices(all, workspace.name, false);
      blocks.push(block([files], [climb, throughClient]));
      if (depth > 0) blocks.push(block([`${workspace.dir}/src/${'*/'.repeat(depth - 1)}${SOURCE}`], [climb, throughClient, infrastructure]));
      blocks.push(block([[files, TEST_FILES]], [climb, otherServices(all, workspace.name, true)]));
    }
  }
  return blocks;
}
