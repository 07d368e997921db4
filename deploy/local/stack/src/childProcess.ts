import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface ChildSpec {
  /** Short name used as the log prefix, e.g. `gateway`. */
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Where prefixed output goes; defaults to this process's stderr. */
  output?: (line: string) => void;
}

export interface ManagedChild {
  readonly name: string;
  readonly pid: number;
  readonly process: ChildProcess;
  /** Resolves with the exit code (or the signal name) once the process has exited. */
  readonly exited: Promise<number | string>;
  /** Resolves with the first stdout line `parse` accepts; rejects on exit or timeout. */
  waitForLine<T>(parse: (line: string) => T | undefined, timeoutMs: number): Promise<T>;
  /** SIGTERM, then SIGKILL after `graceMs`. Resolves when the process is gone. */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL to the whole process group (the child and what it spawned): a crash, for tests. */
  kill(): Promise<void>;
  isRunning(): boolean;
  /**
   * The last line the child wrote on stderr (where a service says in one line why it cannot start),
   * once its stderr has ended (or `waitMs` passed: a grandchild may hold the pipe open).
   */
  lastErrorLine(waitMs?: number): Promise<string | undefined>;
}

const COLORS = [36, 33, 35, 32, 34, 91, 92, 93, 94, 95, 96];
let nextColor = 0;

// Children live in their own process groups, so nothing else ends them if this process dies
// without stopping them (an exception, process.exit): kill whatever is still running on exit.
const liveChildren = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of liveChildren) child.kill('SIGKILL');
});

/** Spawns a child whose stdout and stderr lines are echoed with a `name |` prefix. */
export function startChild(spec: ChildSpec): ManagedChild {
  const child = spawn(spec.command, spec.args, {
    cwd: spec.cwd,
    env: spec.env ?? process.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    // Its own process group: a terminal's Ctrl-C reaches only the stack, which then stops
    // services before the infrastructure they need to shut down cleanly.
    detached: true,
  });
  if (child.pid === undefined) throw new Error(`could not start ${spec.name} (${spec.command})`);
  const color = COLORS[nextColor++ % COLORS.length];
  const useColor = process.stderr.isTTY === true;
  const prefix = useColor ? `\x1b[${color}m${spec.name.padEnd(18)}|\x1b[0m ` : `${spec.name.padEnd(18)}| `;
  const write = spec.output ?? ((line: string) => process.stderr.write(`${line}\n`));
  const lineListeners = new Set<(line: string) => void>();
  let lastErrorLine: string | undefined;
  let stderrEnded = false;
  const stderrEnd = new Set<() => void>();

  for (const stream of [child.stdout, child.stderr]) {
    const lines = createInterface({ input: stream });
    lines.on('line', (line) => {
      write(prefix + line);
      if (stream === child.stdout) for (const listener of lineListeners) listener(line);
      else if (line.trim() !== '') lastErrorLine = line;
    });
    if (stream === child.stderr) {
      lines.once('close', () => {
        stderrEnded = true;
        for (const resolve of stderrEnd) resolve();
      });
    }
  }

  let running = true;
  liveChildren.add(child);
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => {
      running = false;
      liveChildren.delete(child);
      resolve(code ?? signal ?? 'unknown');
    });
  });

  return {
    name: spec.name,
    pid: child.pid,
    process: child,
    exited,
    isRunning: () => running,
    async lastErrorLine(waitMs = 1_000): Promise<string | undefined> {
      if (!stderrEnded) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, waitMs);
          function done(): void {
            clearTimeout(timer);
            stderrEnd.delete(done);
            resolve();
          }
          stderrEnd.add(done);
        });
      }
      return lastErrorLine;
    },
    waitForLine<T>(parse: (line: string) => T | undefined, timeoutMs: number): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => finish(new Error(`${spec.name} did not become ready within ${timeoutMs} ms`)), timeoutMs);
        const listener = (line: string): void => {
          const parsed = parse(line);
          if (parsed !== undefined) finish(undefined, parsed);
        };
        const onExit = (code: number | string): void => finish(new Error(`${spec.name} exited (${code}) before it was ready`));
        function finish(error?: Error, value?: T): void {
          clearTimeout(timer);
          lineListeners.delete(listener);
          if (error) reject(error);
          else resolve(value as T);
        }
        lineListeners.add(listener);
        void exited.then(onExit);
      });
    },
    async stop(graceMs = 15_000): Promise<void> {
      if (!running) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
    async kill(): Promise<void> {
      if (!running) return;
      try {
        process.kill(-(child.pid ?? 0), 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      await exited;
    },
  };
}

/** Parses a stdout line as a JSON object, or undefined when it is not one. */
export function jsonLine(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
