// The client is a package of its own (README, "Types" and "Publishing"): its types come from the
// checked-in OpenAPI document, not from the services' packages, and what `npm pack` makes of it
// type-checks and runs in a project that has nothing of this repository but the tarball.
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const packageDir = new URL('..', import.meta.url).pathname;
const root = join(packageDir, '../..');
const bin = (name: string) => join(root, 'node_modules/.bin', name);
const run = (command: string, args: string[], cwd: string) => execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

describe('src/openapi.ts is what openapi-typescript makes of clients/openapi.json (npm run openapi writes both)', () => {
  test('the checked-in types are current', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'ars-client-types-'));
    try {
      const generated = join(scratch, 'openapi.ts');
      run(bin('openapi-typescript'), ['../openapi.json', '--empty-objects-unknown', '-o', generated], packageDir);
      const formatted = execFileSync(bin('prettier'), ['--stdin-filepath', join(packageDir, 'src/openapi.ts')], {
        cwd: root,
        input: readFileSync(generated, 'utf8'),
        encoding: 'utf8',
      });
      expect(readFileSync(join(packageDir, 'src/openapi.ts'), 'utf8')).toBe(formatted);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

describe('@ars/client is published on its own: its manifest names no workspace package and its sources import none', () => {
  test('no @ars/ dependency of any kind', () => {
    const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
    const named = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'].flatMap((field) => Object.keys(manifest[field] ?? {}));
    expect(named.filter((name) => name.startsWith('@ars/'))).toEqual([]);
  });

  test('no source file imports anything but its siblings, node: modules and eventsource-parser', () => {
    const sources = readdirSync(join(packageDir, 'src')).filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'));
    const specifiers = sources.flatMap((file) =>
      [...readFileSync(join(packageDir, 'src', file), 'utf8').matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((match) => match[1] ?? ''),
    );
    expect(specifiers.length).toBeGreaterThan(0);
    expect(specifiers.filter((specifier) => !/^(\.\/|node:|eventsource-parser$)/.test(specifier))).toEqual([]);
  });
});

describe('what npm pack makes of it type-checks and runs in a project with only the tarball and its one dependency', () => {
  let scratch = '';
  let server: Server | undefined;
  afterAll(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    rmSync(scratch, { recursive: true, force: true });
  });

  test('packed, installed, compiled strictly against its .d.ts, and run: a 404 is an ArsApiError with the envelope code', async () => {
    scratch = mkdtempSync(join(tmpdir(), 'ars-client-pack-'));
    // Build the package from its sources into a copy of it, as `npm publish` would after `npm run build`.
    const staged = join(scratch, 'staged');
    mkdirSync(staged);
    writeFileSync(join(staged, 'package.json'), readFileSync(join(packageDir, 'package.json')));
    writeFileSync(join(staged, 'README.md'), readFileSync(join(packageDir, 'README.md')));
    run(bin('tsc'), ['-p', join(packageDir, 'tsconfig.json'), '--outDir', join(staged, 'dist'), '--tsBuildInfoFile', join(scratch, 'build.tsbuildinfo')], root);
    const [packed] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', scratch], staged)) as { filename: string; files: { path: string }[] }[];
    expect(packed?.files.map((file) => file.path).filter((path) => !path.startsWith('dist/') && path !== 'package.json' && path !== 'README.md')).toEqual([]);

    // A consumer project: the tarball unpacked where npm would put it, and nothing else of this repository.
    const consumer = join(scratch, 'consumer');
    const installed = join(consumer, 'node_modules/@ars/client');
    mkdirSync(installed, { recursive: true });
    run('tar', ['-xzf', join(scratch, packed?.filename ?? ''), '-C', installed, '--strip-components=1'], scratch);
    mkdirSync(join(consumer, 'node_modules/@types'), { recursive: true });
    symlinkSync(join(root, 'node_modules/eventsource-parser'), join(consumer, 'node_modules/eventsource-parser'));
    symlinkSync(join(root, 'node_modules/@types/node'), join(consumer, 'node_modules/@types/node'));
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    writeFileSync(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, types: ['node'], outDir: 'out' },
        files: ['consumer.ts'],
      }),
    );
    writeFileSync(
      join(consumer, 'consumer.ts'),
      [
        "import { ArsApiError, ArsClient, type Run, type RunStatus, type StartRunBody } from '@ars/client';",
        "const body: StartRunBody = { repoId: 'acme/demo', prompt: 'Fix the flaky test', harness: 'claude-code' };",
        "// @ts-expect-error the contract's harnesses only",
        "const wrong: StartRunBody = { repoId: 'acme/demo', prompt: 'p', harness: 'gpt' };",
        "const status: RunStatus = 'success';",
        'const statusOf = (run: Run): string => run.status;',
        "const ars = new ArsClient({ baseUrl: process.argv[2] ?? '', token: 'ars_test', retry: { maxAttempts: 1 } });",
        'try {',
        "  await ars.runs.get('run_missing');",
        '} catch (error) {',
        '  if (error instanceof ArsApiError) console.log(`${error.code} ${error.status} ${error.requestId}`);',
        '}',
        'void [body, wrong, status, statusOf];',
      ].join('\n'),
    );
    run(bin('tsc'), ['-p', join(consumer, 'tsconfig.json')], consumer);

    server = createServer((_, response) => {
      response.writeHead(404, { 'Content-Type': 'application/json', 'X-Request-Id': 'req-packed' });
      response.end(JSON.stringify({ ok: false, error: { code: 'NOT_FOUND', message: 'Run not found' } }));
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    // Asynchronous: the stand-in answers from this process.
    const printed = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [join(consumer, 'out/consumer.js'), `http://127.0.0.1:${port}`], { cwd: consumer }, (error, stdout) =>
        error ? reject(error) : resolve(stdout),
      ),
    );
    expect(printed.trim()).toBe('NOT_FOUND 404 req-packed');
    // Two compilers and npm pack, one after another: about 15 s of CPU alone, 80 s in a CI run
    // sharing two cores with every suite (past jest's 60 s default, which fits a request, not a build).
  }, 240_000);
});
