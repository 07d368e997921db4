import { LOCK_FILE_RULES, SANDBOX_CONFIG_FILE, sandboxPlan } from './sandboxPlan.js';

/** A working directory holding exactly these files. */
function tree(files: Record<string, string>): { readFile: (path: string) => Promise<string | null>; read: string[] } {
  const read: string[] = [];
  return {
    read,
    readFile: async (path) => {
      read.push(path);
      return Object.hasOwn(files, path) ? (files[path] ?? null) : null;
    },
  };
}

const plan = (files: Record<string, string>) => sandboxPlan(tree(files).readFile);
const packageJson = (scripts: Record<string, unknown>) => JSON.stringify({ name: 'app', scripts });

describe('the configuration file .ars/sandbox.json wins for each key it has', () => {
  test('a configured install and dev replace the lock file’s and package.json’s', async () => {
    const result = await plan({
      [SANDBOX_CONFIG_FILE]: JSON.stringify({ install: 'make deps', dev: 'make serve' }),
      'package-lock.json': '{}',
      'package.json': packageJson({ dev: 'vite' }),
    });
    expect(result).toEqual({ install: { command: 'make deps', source: 'configured' }, dev: { command: 'make serve', source: 'configured' }, problems: [] });
  });
  test('a key the file does not have is still detected', async () => {
    const onlyInstall = await plan({ [SANDBOX_CONFIG_FILE]: '{"install": "make deps"}', 'yarn.lock': '', 'package.json': packageJson({ dev: 'vite' }) });
    expect(onlyInstall.install).toEqual({ command: 'make deps', source: 'configured' });
    expect(onlyInstall.dev).toEqual({ command: 'yarn run dev', source: 'package_json:dev' });
    const onlyDev = await plan({ [SANDBOX_CONFIG_FILE]: '{"dev": "make serve"}', 'go.sum': '' });
    expect(onlyDev.install).toEqual({ command: 'go mod download', source: 'lockfile:go' });
    expect(onlyDev.dev).toEqual({ command: 'make serve', source: 'configured' });
  });
  test('an unknown key is reported (a misspelling) but the file is still used', async () => {
    const result = await plan({ [SANDBOX_CONFIG_FILE]: '{"instal": "x", "dev": "make serve"}', 'package-lock.json': '{}' });
    expect(result.dev).toEqual({ command: 'make serve', source: 'configured' });
    expect(result.install).toEqual({ command: 'npm ci --no-audit --no-fund', source: 'lockfile:npm' });
    expect(result.problems).toEqual(['.ars/sandbox.json: unknown key "instal" ignored (known: "install", "dev")']);
  });
});

describe('null or "" in the configuration means explicitly none', () => {
  test('null install: nothing installed although a lock file is there', async () => {
    const result = await plan({ [SANDBOX_CONFIG_FILE]: '{"install": null}', 'pnpm-lock.yaml': '', 'package.json': packageJson({ dev: 'vite' }) });
    expect(result.install).toBeNull();
    expect(result.dev).toEqual({ command: 'pnpm run dev', source: 'package_json:dev' });
  });
  test('"" (or blanks) dev: no dev server although package.json has scripts.dev', async () => {
    expect((await plan({ [SANDBOX_CONFIG_FILE]: '{"dev": ""}', 'package.json': packageJson({ dev: 'vite' }) })).dev).toBeNull();
    expect(
      await plan({ [SANDBOX_CONFIG_FILE]: '{"dev": "  ", "install": null}', 'package-lock.json': '{}', 'package.json': packageJson({ dev: 'vite' }) }),
    ).toEqual({
      install: null,
      dev: null,
      problems: [],
    });
  });
});

describe('an invalid configuration file is ignored with a problem naming it, never thrown', () => {
  const detected = { command: 'npm ci --no-audit --no-fund', source: 'lockfile:npm' };
  test('invalid JSON: detection as if the file were absent; the problem does not quote the file', async () => {
    const result = await plan({
      [SANDBOX_CONFIG_FILE]: '{"install": "make deps", "token": "s3cr3t-value"',
      'package-lock.json': '{}',
      'package.json': packageJson({ dev: 'next dev' }),
    });
    expect(result.install).toEqual(detected);
    expect(result.dev).toEqual({ command: 'npm run dev', source: 'package_json:dev' });
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatch(/^\.ars\/sandbox\.json is ignored: it is not valid JSON/);
    expect(result.problems[0]).not.toContain('s3cr3t');
    // Node's message for this one quotes the text itself.
    const unquoted = await plan({ [SANDBOX_CONFIG_FILE]: '{"install": make deps --token=s3cr3t-value}' });
    expect(unquoted.problems).toEqual(['.ars/sandbox.json is ignored: it is not valid JSON']);
  });
  test('an empty file, an array', async () => {
    expect((await plan({ [SANDBOX_CONFIG_FILE]: '' })).problems).toEqual(['.ars/sandbox.json is ignored: it is empty, which is not valid JSON']);
    expect((await plan({ [SANDBOX_CONFIG_FILE]: '["npm ci"]' })).problems).toEqual([
      '.ars/sandbox.json is ignored: it must be a JSON object like {"install": "…", "dev": "…"}, not an array',
    ]);
  });
  test('a wrong type: the whole file is ignored, its valid keys too', async () => {
    const result = await plan({ [SANDBOX_CONFIG_FILE]: '{"install": ["npm", "ci"], "dev": "make serve"}', 'package-lock.json': '{}' });
    expect(result).toEqual({ install: detected, dev: null, problems: ['.ars/sandbox.json is ignored: "install" must be a string or null, not an array'] });
    expect((await plan({ [SANDBOX_CONFIG_FILE]: '{"install": 1, "dev": false}' })).problems).toEqual([
      '.ars/sandbox.json is ignored: "install" must be a string or null, not a number; "dev" must be a string or null, not a boolean',
    ]);
  });
  test('a byte order mark is not an error', async () => {
    expect(await plan({ [SANDBOX_CONFIG_FILE]: '\uFEFF{"install": "make deps"}' })).toEqual({
      install: { command: 'make deps', source: 'configured' },
      dev: null,
      problems: [],
    });
  });
});

describe('install is detected from lock files, in order', () => {
  // The order and commands as specified; LOCK_FILE_RULES must say exactly this.
  const expected: [file: string, command: string, source: string][] = [
    ['pnpm-lock.yaml', 'pnpm install --frozen-lockfile', 'lockfile:pnpm'],
    ['yarn.lock', 'yarn install --frozen-lockfile', 'lockfile:yarn'],
    ['bun.lockb', 'bun install --frozen-lockfile', 'lockfile:bun'],
    ['bun.lock', 'bun install --frozen-lockfile', 'lockfile:bun'],
    ['package-lock.json', 'npm ci --no-audit --no-fund', 'lockfile:npm'],
    ['npm-shrinkwrap.json', 'npm ci --no-audit --no-fund', 'lockfile:npm'],
    ['uv.lock', 'uv sync --frozen', 'lockfile:uv'],
    ['poetry.lock', 'poetry install --no-interaction', 'lockfile:poetry'],
    ['Pipfile.lock', 'pipenv sync', 'lockfile:pipenv'],
    ['requirements.txt', 'pip install -r requirements.txt', 'requirements:pip'],
    ['Gemfile.lock', 'bundle install', 'lockfile:bundler'],
    ['go.sum', 'go mod download', 'lockfile:go'],
    ['Cargo.lock', 'cargo fetch --locked', 'lockfile:cargo'],
    ['composer.lock', 'composer install --no-interaction', 'lockfile:composer'],
  ];
  test('the exported table is the specified one', () => {
    expect(LOCK_FILE_RULES.flatMap((rule) => rule.files.map((file) => [file, rule.command, rule.source]))).toEqual(expected);
  });
  test.each(expected)('%s alone → %s', async (file, command, source) => {
    // Only presence counts: an empty (or binary) lock file selects its rule.
    expect(await plan({ [file]: '' })).toEqual({ install: { command, source }, dev: null, problems: [] });
  });
  test('each file wins over every file after it', async () => {
    for (let index = 0; index < expected.length - 1; index += 1) {
      const [file, command, source] = expected[index] ?? ['', '', ''];
      const later = Object.fromEntries(expected.slice(index).map(([name]) => [name, '']));
      expect({ file, install: (await plan(later)).install }).toEqual({ file, install: { command, source } });
    }
  });
  test('no lock file: no install', async () => {
    expect(await plan({ 'README.md': '# app', 'package.json': packageJson({}) })).toEqual({ install: null, dev: null, problems: [] });
  });
});

describe('the dev command is package.json scripts.dev run by the package manager of the lock file', () => {
  test.each([
    ['pnpm-lock.yaml', 'pnpm run dev'],
    ['yarn.lock', 'yarn run dev'],
    ['bun.lock', 'bun run dev'],
    ['package-lock.json', 'npm run dev'],
  ])('%s → %s', async (lockFile, command) => {
    expect((await plan({ [lockFile]: '', 'package.json': packageJson({ dev: 'vite' }) })).dev).toEqual({ command, source: 'package_json:dev' });
  });
  test('npm when there is no lock file, or only another ecosystem’s', async () => {
    expect((await plan({ 'package.json': packageJson({ dev: 'vite' }) })).dev).toEqual({ command: 'npm run dev', source: 'package_json:dev' });
    const python = await plan({ 'uv.lock': '', 'package.json': packageJson({ dev: 'vite' }) });
    expect(python).toEqual({
      install: { command: 'uv sync --frozen', source: 'lockfile:uv' },
      dev: { command: 'npm run dev', source: 'package_json:dev' },
      problems: [],
    });
  });
  test('the lock file decides even when the install is configured', async () => {
    const result = await plan({
      [SANDBOX_CONFIG_FILE]: '{"install": "corepack enable && pnpm i"}',
      'pnpm-lock.yaml': '',
      'package.json': packageJson({ dev: 'vite' }),
    });
    expect(result.dev).toEqual({ command: 'pnpm run dev', source: 'package_json:dev' });
  });
  test('no scripts.dev, a blank one, or no package.json: no dev', async () => {
    expect((await plan({ 'package.json': packageJson({ start: 'node server.js' }) })).dev).toBeNull();
    expect((await plan({ 'package.json': JSON.stringify({ name: 'app' }) })).dev).toBeNull();
    expect((await plan({ 'package.json': packageJson({ dev: ' ' }) })).dev).toBeNull();
    expect((await plan({ 'requirements.txt': 'flask' })).dev).toBeNull();
  });
  test('a configured dev does not read package.json', async () => {
    const files = tree({ [SANDBOX_CONFIG_FILE]: '{"dev": null}', 'package.json': '{not json' });
    expect(await sandboxPlan(files.readFile)).toEqual({ install: null, dev: null, problems: [] });
    expect(files.read).not.toContain('package.json');
  });
});

describe('a malformed package.json is a problem and gives no dev command', () => {
  test.each([
    ['invalid JSON', '{"scripts": {"dev": "vite"}', /^package\.json could not be read, so no dev command was detected: it is not valid JSON/],
    ['not an object', '"vite"', /: it must be a JSON object, not a string$/],
    ['scripts not an object', '{"scripts": ["vite"]}', /: "scripts" must be an object, not an array$/],
    ['scripts.dev not a string', '{"scripts": {"dev": 3}}', /: "scripts\.dev" must be a string, not a number$/],
  ])('%s', async (_case, text, problem) => {
    const result = await plan({ 'package-lock.json': '{}', 'package.json': text });
    expect(result.dev).toBeNull();
    expect(result.install).toEqual({ command: 'npm ci --no-audit --no-fund', source: 'lockfile:npm' });
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatch(problem);
  });
  test('a position in the file is given when JSON.parse knows it', async () => {
    const result = await plan({ 'package.json': '{\n  "scripts": {\n    oops\n  }\n}' });
    expect(result.problems).toEqual(['package.json could not be read, so no dev command was detected: it is not valid JSON (line 3, column 5)']);
  });
});
