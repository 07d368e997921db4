// Test support (not built into dist/): the runs service as its own process from the built
// `services/runs/dist/main.js` (build first), for crash tests: SIGKILL and a restart.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const mainJs = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

export interface RunsProcess {
  child: ChildProcess;
  lines: string[];
  /** SIGKILL, as a crash ends it; resolves once it exited. */
  kill(): Promise<void>;
  /** SIGTERM; resolves once it exited. */
  stop(): Promise<void>;
}

/** Starts `node services/runs/dist/main.js` with `env`; resolves once it logged `ready`. */
export async function startRunsProcess(env: Record<string, string>, readyTimeoutMs = 30_000): Promise<RunsProcess> {
  if (!existsSync(mainJs)) throw new Error('services/runs/dist is missing: run `npx tsc -b tsconfig.build.json` before this test');
  const child = spawn(process.execPath, [mainJs], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`runs did not get ready within ${readyTimeoutMs} ms:\n${lines.slice(-20).join('\n')}`)), readyTimeoutMs);
    const onLine = (line: string): void => {
      lines.push(line);
      if (line.includes('"msg":"ready"')) {
        clearTimeout(timer);
        resolve();
      }
    };
    createInterface({ input: child.stdout! }).on('line', onLine);
    createInterface({ input: child.stderr! }).on('line', onLine);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`runs exited before it was ready:\n${lines.slice(-20).join('\n')}`));
    });
  });
  await ready;
  return {
    child,
    lines,
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
