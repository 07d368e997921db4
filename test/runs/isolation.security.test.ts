// Issue 11: an agent is locked in its sandbox (the local provider under bubblewrap, the stack's
// default SANDBOX_ISOLATION=bwrap). Each rule is tried from inside a run, through the public API,
// with the stand-in's `@shell`, and checked in what GET /runs/{id}/events returns.
import { newRunsUser, type RunEvent } from '../support/runs.js';
import { sharedSystem } from '@ars/testenv';

const system = sharedSystem();

/** The outputs of the run's shell tool calls, in order, once the run has ended (it must succeed). */
async function shellOutputs(prompt: string, harness: 'codex' | 'claude-code' = 'codex'): Promise<string[]> {
  const { runs, repoId } = await newRunsUser(system().baseUrl);
  const run = await runs.started({ repoId, prompt, harness });
  const { run: done, events } = await runs.waitFor(run.runId);
  expect(done).toMatchObject({ status: 'success' });
  return shells(events);
}

function shells(events: RunEvent[]): string[] {
  return events.filter((event) => event.type === 'tool_call' && event.payload.kind === 'shell').map((event) => String(event.payload.output));
}

/** A node one-liner: connect to 127.0.0.1:port and print `open` or `closed <code>`. */
function connectTo(port: number): string {
  return `node -e "const s=require('net').connect(${port},'127.0.0.1');s.setTimeout(3000,()=>{console.log('closed timeout');process.exit()});s.on('connect',()=>{console.log('open');s.destroy()});s.on('error',(e)=>console.log('closed',e.code))"`;
}

function portOf(url: string): number {
  return Number(new URL(url).port);
}

describe.each(['codex', 'claude-code'] as const)('%s: from inside a run, no service process is visible and no service’s environment is readable', (harness) => {
  test('/proc lists only the sandbox’s own processes; every /proc/*/environ holds the agent’s environment alone', async () => {
    const [processes, environments] = await shellOutputs(
      [
        // Each command line cut short: bwrap's own (PID 1) is long, and event strings are capped.
        '@shell for p in /proc/[0-9]*; do echo "${p#/proc/} $(tr "\\0" " " < $p/cmdline | cut -c1-60)"; done',
        '@shell for f in /proc/[0-9]*/environ; do tr "\\0" "\\n" < $f; done',
      ].join('\n'),
      harness,
    );
    const pids = (processes ?? '')
      .trim()
      .split('\n')
      .map((line) => Number(line.split(' ')[0]));
    expect(pids.length).toBeGreaterThan(1);
    expect(Math.max(...pids)).toBeLessThan(20);
    expect(processes).not.toMatch(/dist\/main\.js|jest|mongod|redis-server/);
    // What was read is the agent's own environment (the reading worked), and nothing of a service's.
    expect(environments).toMatch(/^HOME=/m);
    expect(environments).not.toMatch(/MONGO_URL|KAFKA_BROKERS|REDIS_URL|INTERNAL_TOKEN|CATALOG_URL|SOURCE_HOST_DIR|SANDBOX_ROOT/);
    expect(environments).not.toContain(system().internalToken);
    expect(environments).not.toContain(system().mongoUrl);
  });
});

describe('from inside a run, the gateway’s and MongoDB’s ports are unreachable', () => {
  test('connecting to 127.0.0.1:<gateway port> and 127.0.0.1:<MongoDB port> fails', async () => {
    const gateway = portOf(system().baseUrl);
    const mongo = portOf(system().mongoUrl);
    // The same ports answer from here (the test is on the host): the sandbox is what makes them unreachable.
    expect((await fetch(`${system().baseUrl}/healthz`)).status).toBeLessThan(500);
    const [toGateway, toMongo] = await shellOutputs(`@shell ${connectTo(gateway)}\n@shell ${connectTo(mongo)}`);
    expect(toGateway?.trim()).toMatch(/^closed /);
    expect(toMongo?.trim()).toMatch(/^closed /);
  });
});

describe('from inside a run, another user’s sandbox files are invisible', () => {
  test('a live run’s sandbox directory and its marker file can be neither listed nor read by another user’s run', async () => {
    const owner = await newRunsUser(system().baseUrl);
    const marker = `marker-${Math.random().toString(36).slice(2)}`;
    const live = await owner.runs.started({ repoId: owner.repoId, prompt: `@write ${marker}.txt owner's private content\n@shell echo $PWD\n@sleep 60000` });
    const { events } = await owner.runs.waitFor(live.runId, (_run, seen) => shells(seen).length > 0);
    const ownerTree = (shells(events)[0] ?? '').trim();
    expect(ownerTree).toMatch(/^\//);
    const sandboxRoot = ownerTree.split('/').slice(0, -2).join('/');
    try {
      const [listing, reading] = await shellOutputs(
        [`@shell ls -a ${sandboxRoot}; echo "own: $PWD"`, `@shell cat ${ownerTree}/${marker}.txt 2>&1; ls ${ownerTree} 2>&1; echo end`].join('\n'),
      );
      const own = /own: (\S+)/.exec(listing ?? '')?.[1] ?? '';
      const entries = (listing ?? '').split('\n').filter((line) => line !== '' && line !== '.' && line !== '..' && !line.startsWith('own: '));
      // SANDBOX_ROOT shows this run's own sandbox and nothing else: not the owner's, no snapshots.
      expect(entries).toEqual([own.split('/').slice(-2)[0]]);
      expect(reading).not.toContain("owner's private content");
      expect(reading).toContain(`cat: ${ownerTree}/${marker}.txt: No such file or directory`);
      expect(reading).toContain(`ls: cannot access '${ownerTree}': No such file or directory`);
    } finally {
      await owner.runs.cancel(live.runId);
    }
  });
});

describe('from inside a run, the project’s directory and the source host’s repositories are not visible', () => {
  test('SOURCE_HOST_DIR, /root and /home do not exist inside', async () => {
    const hidden = [system().sourceHostDir, '/root', '/home'];
    const [answer] = await shellOutputs(`@shell ${hidden.map((path) => `[ -e ${path} ] && echo "visible ${path}" || echo "absent ${path}"`).join('; ')}`);
    for (const path of hidden) expect(answer).toContain(`absent ${path}`);
  });

  test('of the project’s directory only the stand-in harness’s own files exist inside (read-only): no source, no configuration, no .git', async () => {
    const project = process.cwd();
    const [files, writing] = await shellOutputs(
      `@shell find ${project} -type f | sort\n@shell touch ${project}/deploy/local/harness-stand-ins/package.json 2>/dev/null && echo writable || echo read-only`,
    );
    const listed = (files ?? '')
      .trim()
      .split('\n')
      .map((file) => file.slice(project.length + 1));
    expect(listed.length).toBeGreaterThan(0);
    for (const file of listed) {
      expect(file).toMatch(
        /^(deploy\/local\/harness-stand-ins\/(package\.json|bin\/(codex|claude-code)-standin\.mjs|dist\/[^/]+)|node_modules\/@ars\/harness-thread-files\/(package\.json|dist\/[^/]+))$/,
      );
    }
    // The stand-in's own package.json is there, so "read-only" below is the mount's answer, not a missing file's.
    expect(listed).toContain('deploy/local/harness-stand-ins/package.json');
    expect(listed).not.toContain('package.json');
    expect(writing?.trim()).toBe('read-only');
  });
});
