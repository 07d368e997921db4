// The local provider under SANDBOX_ISOLATION=bwrap, against the real bubblewrap:
// what a sandbox's commands and harness can see and reach.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@ars/config';
import { assertStandInsBuilt } from '../../harness/testing.js';
import { runHarness, standInExecutable, standInFiles, type HarnessEvent, type HarnessName } from '../../harness/index.js';
import { commitToBare, noModelGateway } from '../../testing/sandboxesKit.js';
import { localIsolation } from '../createProvider.js';
import { processesWorkingIn } from '../processesInDirectory.js';
import type { AllocatedSandbox, ExecRequest } from '../provider.js';
import { DEFAULT_SANDBOX_UID, IsolationUnavailable, prepareIsolation } from './localIsolation.js';
import { LocalProvider } from './localProvider.js';

const HOST_SECRET = 'host-secret-value-4f1c9a';
const API_KEY = 'sk-test-key-visible-to-its-agent-77';

let work: string;
let bare: string;
let provider: LocalProvider;
let hostServer: Server;
let hostPort: number;

beforeAll(async () => {
  assertStandInsBuilt();
  // What the service's own environment holds (MONGO_URL, INTERNAL_TOKEN...): nothing of it may reach a sandbox.
  process.env.ARS_TEST_HOST_SECRET = HOST_SECRET;
  work = realpathSync(mkdtempSync(join(tmpdir(), 'ars-isolation-')));
  // The sandbox user (SANDBOX_UID) passes through to the sandboxes under it, as through any SANDBOX_ROOT's parents.
  chmodSync(work, 0o711);
  bare = join(work, 'origin.git');
  execFileSync('git', ['init', '--quiet', '--bare', '-b', 'main', bare]);
  commitToBare(bare, 'main', { 'README.md': '# fixture\n' });
  provider = new LocalProvider(join(work, 'sandboxes'), { isolation: await prepareIsolation(), killGraceMs: 1_000, modelGateway: noModelGateway() });
  // A service of the host, on its loopback (like MongoDB or the gateway).
  hostServer = createServer((socket) => socket.end('host service\n'));
  await new Promise<void>((resolve) => hostServer.listen(0, '127.0.0.1', resolve));
  const address = hostServer.address();
  hostPort = typeof address === 'object' && address ? address.port : 0;
});

afterAll(async () => {
  delete process.env.ARS_TEST_HOST_SECRET;
  hostServer?.close();
  await provider?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

function allocate(): Promise<AllocatedSandbox> {
  return provider.allocate({ sandboxRecordId: 'record', runId: null, cloneUrl: bare, baseBranch: 'main', workingBranch: 'main', rootDirectory: null });
}

async function run(sandbox: AllocatedSandbox, command: string, extra: Partial<ExecRequest> = {}): Promise<{ exitCode: number | null; output: string }> {
  const chunks: Buffer[] = [];
  const result = await provider.exec(sandbox, {
    command,
    cwd: sandbox.cwd,
    env: { PATH: '/usr/bin:/bin', HOME: sandbox.home, SANDBOX_MARK: 'command-env' },
    onOutput: (chunk) => chunks.push(chunk),
    ...extra,
  });
  return { exitCode: result.exitCode, output: Buffer.concat(chunks).toString('utf8') };
}

/** A node one-liner inside: connect to host:port, print `open` or `closed <code>`. */
function probe(host: string, port: number): string {
  return `node -e "const s=require('net').connect(${port},'${host}');s.setTimeout(3000,()=>{console.log('closed timeout');process.exit()});s.on('connect',()=>{console.log('open');s.destroy()});s.on('error',(e)=>console.log('closed',e.code))"`;
}

describe('a sandbox command sees no other process and no environment but its own', () => {
  test('/proc/1/environ (bwrap’s own PID 1) and every /proc/*/environ hold the command’s environment only', async () => {
    const sandbox = await allocate();
    try {
      const { output, exitCode } = await run(sandbox, 'for f in /proc/[0-9]*/environ; do tr "\\0" "\\n" < "$f"; done; echo; tr "\\0" "\\n" < /proc/1/environ');
      expect(exitCode).toBe(0);
      expect(output).toContain('SANDBOX_MARK=command-env');
      expect(output).not.toContain(HOST_SECRET);
      expect(output).not.toMatch(/MONGO_URL|INTERNAL_TOKEN|JEST_WORKER_ID/);
    } finally {
      await provider.release(sandbox);
    }
  });

  test('no host process is visible: only the sandbox’s own few pids, none of them this service', async () => {
    const sandbox = await allocate();
    try {
      const { output } = await run(sandbox, 'for p in /proc/[0-9]*; do echo "${p#/proc/} $(tr "\\0" " " < $p/cmdline)"; done');
      const pids = output
        .trim()
        .split('\n')
        .map((line) => Number(line.split(' ')[0]));
      expect(Math.max(...pids)).toBeLessThan(20);
      expect(output).not.toMatch(/jest|dist\/main\.js/);
      expect(pids).not.toContain(process.pid);
    } finally {
      await provider.release(sandbox);
    }
  });
});

describe('a sandbox command sees only its own directory (writable), the system (read-only) and a private /tmp', () => {
  test('another sandbox under SANDBOX_ROOT can be neither listed nor read; SANDBOX_ROOT shows only this one', async () => {
    const mine = await allocate();
    const other = await allocate();
    try {
      writeFileSync(join(other.repoDir, 'marker.txt'), 'other tenant\n');
      const { output } = await run(mine, `ls ${join(work, 'sandboxes')}; cat ${join(other.repoDir, 'marker.txt')} 2>&1; ls ${other.dir} 2>&1`);
      expect(output.split('\n')[0]).toBe(mine.sandboxId);
      expect(output).not.toContain('other tenant');
      expect(output).toContain('No such file or directory');
    } finally {
      await provider.release(mine);
      await provider.release(other);
    }
  });

  test('the project directory, the test’s temporary directory, /root and /home do not exist inside', async () => {
    const sandbox = await allocate();
    try {
      const outside = [process.cwd(), join(work, 'origin.git'), '/root', '/home'];
      const { output } = await run(sandbox, outside.map((path) => `[ -e ${path} ] && echo "visible ${path}" || echo "absent ${path}"`).join('; '));
      for (const path of outside) expect(output).toContain(`absent ${path}`);
    } finally {
      await provider.release(sandbox);
    }
  });

  test('its directory and /tmp are writable; /usr and /etc are not; the host’s /tmp is not its /tmp', async () => {
    const sandbox = await allocate();
    const hostFile = join(tmpdir(), `ars-isolation-host-${process.pid}`);
    writeFileSync(hostFile, 'host tmp');
    try {
      const { output } = await run(
        sandbox,
        `touch written && echo repo-ok; touch /tmp/x && echo tmp-ok; touch /usr/x 2>/dev/null || echo usr-ro; touch /etc/x 2>/dev/null || echo etc-ro; [ -e ${hostFile} ] || echo host-tmp-absent`,
      );
      expect(output.trim().split('\n')).toEqual(['repo-ok', 'tmp-ok', 'usr-ro', 'etc-ro', 'host-tmp-absent']);
    } finally {
      rmSync(hostFile, { force: true });
      await provider.release(sandbox);
    }
  });

  test('no capability: mounting is refused, even as root inside', async () => {
    const sandbox = await allocate();
    try {
      const { output } = await run(sandbox, 'grep CapEff /proc/self/status; mount -t tmpfs none /tmp 2>/dev/null && echo mounted || echo refused');
      expect(output).toContain('CapEff:\t0000000000000000');
      expect(output).toContain('refused');
    } finally {
      await provider.release(sandbox);
    }
  });
});

/** The host's uid of each of `pids` still running (one that has exited since it was listed is left out). */
function hostUidsOf(pids: readonly number[]): string[] {
  return pids.flatMap((pid) => {
    let status: string;
    try {
      status = readFileSync(`/proc/${pid}/status`, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ESRCH') return [];
      throw error;
    }
    const uid = /^Uid:\s+(\d+)/m.exec(status)?.[1];
    if (uid === undefined) throw new Error(`no Uid line in /proc/${pid}/status`);
    return [uid];
  });
}

describe('a sandbox’s processes run as the unprivileged sandbox user on the host, never as root', () => {
  test('its uid is SANDBOX_UID on the host (every process of it, as the host sees them); its tree is that user’s', async () => {
    const sandbox = await allocate();
    const controller = new AbortController();
    try {
      const seen: Buffer[] = [];
      const printed = (): string => Buffer.concat(seen).toString('utf8');
      const running = run(sandbox, 'id -u; stat -c %u .; sleep 30 & echo started; wait', {
        signal: controller.signal,
        onOutput: (chunk) => seen.push(chunk),
      });
      // Listed once `sleep` has started (so the shell and its `sleep` both stay), and once `id` and `stat` have
      // printed: an abort before then would cut their output. They may exit between the listing and the reading.
      let hostUids: string[] = [];
      for (let attempt = 0; attempt < 100 && (hostUids.length < 2 || !printed().includes('started')); attempt++) {
        if (printed().includes('started')) hostUids = hostUidsOf(await processesWorkingIn(sandbox.dir ?? ''));
        if (hostUids.length < 2 || !printed().includes('started')) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      controller.abort();
      await running;
      const output = printed();
      expect(hostUids.length).toBeGreaterThanOrEqual(2);
      expect(new Set(hostUids)).toEqual(new Set([String(DEFAULT_SANDBOX_UID)]));
      expect(output.trim().split('\n').slice(0, 2)).toEqual([String(DEFAULT_SANDBOX_UID), String(DEFAULT_SANDBOX_UID)]);
    } finally {
      controller.abort();
      await provider.release(sandbox);
    }
  });
});

describe('a new sandbox is wholly the sandbox user’s once allocated, its HOME included: a run that writes nothing into HOME needs no second hand-over', () => {
  test('no file or directory of the allocated sandbox (repository, HOME and its .gitconfig, tmp) belongs to anyone else', async () => {
    const sandbox = await allocate();
    try {
      expect(existsSync(join(sandbox.home, '.gitconfig'))).toBe(true);
      const notTheirs = execFileSync('find', [sandbox.dir ?? '', '!', '-uid', String(DEFAULT_SANDBOX_UID), '-print'], { encoding: 'utf8' });
      expect(notTheirs).toBe('');
    } finally {
      await provider.release(sandbox);
    }
  });
});

describe('a sandbox command reaches nothing outside but its doors; a forwarded port is reachable from the host and gives no route out', () => {
  test('no egress (the default): the host’s loopback service is unreachable', async () => {
    const sandbox = await allocate();
    try {
      expect((await run(sandbox, probe('127.0.0.1', hostPort))).output.trim()).toMatch(/^closed /);
    } finally {
      await provider.release(sandbox);
    }
  });

  test('an install step whose allowlist names nothing gets no proxy: only its loopback, the host’s service unreachable', async () => {
    const sandbox = await allocate();
    try {
      const { output } = await run(
        sandbox,
        `${probe('127.0.0.1', hostPort)}; cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '; echo "proxy=\${HTTPS_PROXY:-none}"`,
        {
          egress: 'install',
        },
      );
      expect(output.trim().split('\n')).toEqual([expect.stringMatching(/^closed /), 'lo', 'proxy=none']);
    } finally {
      await provider.release(sandbox);
    }
  });

  test('a forwarded port: a server listening inside answers on the host’s 127.0.0.1:port', async () => {
    const sandbox = await allocate();
    const controller = new AbortController();
    try {
      const endpoint = await provider.previewEndpoint();
      const server = `node -e "require('http').createServer((q,s)=>s.end('from the sandbox')).listen(${endpoint.port},'0.0.0.0')"`;
      const running = run(sandbox, server, { forwardPort: endpoint.port, signal: controller.signal });
      let body = '';
      for (let attempt = 0; attempt < 100 && body === ''; attempt++) {
        body = await fetch(endpoint.url)
          .then((answer) => answer.text())
          .catch(async () => {
            await new Promise((resolve) => setTimeout(resolve, 100));
            return '';
          });
      }
      expect(body).toBe('from the sandbox');
      controller.abort();
      await running;
    } finally {
      controller.abort();
      await provider.release(sandbox);
    }
  });
});

describe('everything a sandbox command started ends with it', () => {
  test('abort ends the command and what it left in the background (the PID namespace goes with bwrap)', async () => {
    const sandbox = await allocate();
    const controller = new AbortController();
    try {
      const running = run(sandbox, 'sleep 300 & echo started; wait', { signal: controller.signal });
      for (let attempt = 0; attempt < 100 && (await processesWorkingIn(sandbox.dir ?? '')).length < 3; attempt++)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect((await processesWorkingIn(sandbox.dir ?? '')).length).toBeGreaterThanOrEqual(3);
      controller.abort();
      const result = await running;
      expect(result.exitCode).not.toBe(0);
      for (let attempt = 0; attempt < 100 && (await processesWorkingIn(sandbox.dir ?? '')).length > 0; attempt++)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await processesWorkingIn(sandbox.dir ?? '')).toEqual([]);
    } finally {
      await provider.release(sandbox);
    }
  });
});

describe.each(['codex', 'claude-code'] as const)('%s: the harness CLI runs inside the sandbox too', (harness: HarnessName) => {
  test('its shell sees no host environment; the provider key reaches the CLI; paths stay relative to the tree', async () => {
    const sandbox = await allocate();
    try {
      const launch = await provider.launchHarness(sandbox, {
        harness,
        executablePath: standInExecutable(harness),
        cliFiles: standInFiles(harness),
        env: { PATH: '/usr/bin:/bin', HOME: sandbox.home, LANG: 'C.UTF-8' },
        cwd: sandbox.cwd,
      });
      expect(launch.executablePath).not.toBe(standInExecutable(harness));
      const events: HarnessEvent[] = [];
      const keyName = harness === 'codex' ? 'CODEX_API_KEY' : 'ANTHROPIC_API_KEY';
      const result = await runHarness({
        harness,
        prompt: `@shell for f in /proc/[0-9]*/environ; do tr "\\0" "\\n" < $f; done; ls /proc | grep -c "^[0-9]"\n@shell printenv ${keyName}\n@write notes/a.txt hello\n@shell ${probe('127.0.0.1', hostPort)}`,
        cwd: launch.cwd,
        treeRoot: sandbox.cwd,
        env: launch.env,
        apiKey: API_KEY,
        signal: new AbortController().signal,
        ...(launch.executablePath ? { executablePath: launch.executablePath } : {}),
        onEvent: (event) => {
          events.push(event);
          return Promise.resolve();
        },
      });
      await launch.close();
      expect(result).toMatchObject({ status: 'success' });
      const shells = events.filter((event) => event.type === 'tool_call' && event.payload.kind === 'shell').map((event) => String(event.payload.output));
      expect(shells[0]).not.toContain(HOST_SECRET);
      expect(shells[0]).not.toContain('ARS_SANDBOX_LAUNCH');
      expect(shells[0]).toContain(`HOME=${sandbox.home}`);
      expect(Number(shells[0]?.trim().split('\n').pop())).toBeLessThan(20);
      expect(shells[1]?.trim()).toBe(API_KEY);
      expect(shells[2]?.trim()).toMatch(/^closed /);
      expect(events.find((event) => event.type === 'file_change')?.payload).toEqual({ changes: [{ path: 'notes/a.txt', kind: 'add' }] });
    } finally {
      await provider.release(sandbox);
    }
  });
});

describe('where namespaces are unavailable, the service refuses to start unless SANDBOX_ISOLATION=none', () => {
  const withPath = async <T>(path: string, body: () => Promise<T>): Promise<T> => {
    const saved = process.env.PATH;
    process.env.PATH = path;
    try {
      return await body();
    } finally {
      process.env.PATH = saved;
    }
  };
  const empty = (): string => {
    const dir = join(work, 'empty-bin');
    mkdirSync(dir, { recursive: true });
    return dir;
  };

  test('bwrap missing: prepareIsolation says so, and the configuration error is one line naming SANDBOX_ISOLATION', async () => {
    await withPath(empty(), async () => {
      await expect(prepareIsolation()).rejects.toThrow(IsolationUnavailable);
      const refused = await localIsolation({ SANDBOX_PROVIDER: 'local', SANDBOX_ISOLATION: 'bwrap' }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ConfigError);
      expect(String((refused as Error).message)).toMatch(
        /^Invalid configuration: SANDBOX_ISOLATION=bwrap cannot isolate sandboxes here: bwrap is not installed/,
      );
      expect(String((refused as Error).message)).not.toContain('\n');
    });
  });

  test('SANDBOX_ISOLATION=none (or the Kubernetes provider) needs nothing: no isolation is prepared', async () => {
    await withPath(empty(), async () => {
      expect(await localIsolation({ SANDBOX_PROVIDER: 'local', SANDBOX_ISOLATION: 'none' })).toBeNull();
      expect(await localIsolation({ SANDBOX_PROVIDER: 'kubernetes', SANDBOX_ISOLATION: 'bwrap' })).toBeNull();
    });
  });
});
