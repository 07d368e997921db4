// scripts/jestWatchdogReporter.cjs on a jest run of its own (test/ci/fixtures/hangingFile): one file
// passes, the other blocks its worker forever.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CONFIG = join(ROOT, 'test/ci/fixtures/hangingFile/jest.config.cjs');

interface JestRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runJestOnTheFixture(reports: string): Promise<JestRun> {
  const child = spawn(
    process.execPath,
    ['--report-on-signal', `--report-directory=${reports}`, join(ROOT, 'node_modules/jest/bin/jest.js'), '--config', CONFIG],
    { cwd: ROOT, env: { ...process.env, ARS_TEST_FILE_WARN_S: '1', ARS_TEST_FILE_LIMIT_S: '4', CI: 'true' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('a test file that never ends is stopped by the watchdog, and names itself', () => {
  let run: JestRun;
  const reports = mkdtempSync(join(tmpdir(), 'ars-watchdog-'));
  beforeAll(async () => {
    run = await runJestOnTheFixture(reports);
  }, 60_000);
  afterAll(() => rmSync(reports, { recursive: true, force: true }));

  test('past the warning it names the file, the processes under jest and the worker’s JavaScript stack', () => {
    expect(run.stderr).toMatch(/\[watchdog\] \S*hangs\.spec\.cjs has run for \d+ s \(over 1 s; the run ends at 4 s\)/);
    expect(run.stderr).toMatch(/processes under jest/);
    expect(run.stderr).toMatch(/JavaScript stack: [\s\S]*at waitForever \(\S*hangs\.spec\.cjs:\d+:\d+\)/);
  });

  test('past the limit it ends the run with exit code 1 and a closing line counting the file as failed', () => {
    expect(run.stderr).toMatch(/hangs\.spec\.cjs has run for \d+ s, over the limit of 4 s: ending the run/);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/hangs\.spec\.cjs ran over 4 s and was stopped\njest: 1 passed, 1 failed, 0 skipped\n$/);
  });
});
