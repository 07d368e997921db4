import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runHarness, standInExecutable, type HarnessEvent, type HarnessName } from '../../harness/index.js';
import { waitFor } from '@ars/testenv';
import { assertStandInsBuilt, isAlive } from '../../harness/testing.js';
import { KubernetesStandIn, kubeletEvictionMessage } from '@ars/kubernetes-stand-in';
import { AllocationError, HomeFilesTooLarge, type AllocateRequest, type AllocatedSandbox, type HarnessLaunch } from '../provider.js';
import { ModelGateway } from '../../modelAccess/modelGateway.js';
import { KubernetesProvider } from './kubernetesProvider.js';
import { kubernetesSettings } from './settings.js';
import { bareRepository, NAMESPACE, type BareRepository } from './testing.js';

const PATH = process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin';
const HARNESSES: HarnessName[] = ['codex', 'claude-code'];
const KEY_NAME: Record<HarnessName, string> = { codex: 'CODEX_API_KEY', 'claude-code': 'ANTHROPIC_API_KEY' };
const SLOW = 180_000;

let standIn: KubernetesStandIn;
let repo: BareRepository;
let provider: KubernetesProvider;
let scratch: string;

beforeAll(async () => {
  assertStandInsBuilt();
  standIn = await KubernetesStandIn.start();
  repo = await bareRepository();
  scratch = await mkdtemp(join(tmpdir(), 'k8s-provider-test-'));
  provider = new KubernetesProvider(
    kubernetesSettings({ K8S_IMAGE: 'ghcr.io/acme/sandbox:1', K8S_API_SERVER: standIn.url, K8S_TOKEN: standIn.token, MODEL_GATEWAY_POD_IP: '127.0.0.1' }),
    {
      pollIntervalMs: 25,
      killGraceMs: 2000,
    },
  );
});

afterAll(async () => {
  await provider.close();
  await standIn.stop();
  await repo.remove();
  await rm(scratch, { recursive: true, force: true });
});

function allocate(overrides: Partial<AllocateRequest> = {}): Promise<AllocatedSandbox> {
  return provider.allocate({
    sandboxRecordId: 'sbx_test1',
    runId: 'run-1',
    cloneUrl: repo.url,
    baseBranch: 'main',
    workingBranch: 'ars/work',
    rootDirectory: null,
    ...overrides,
  });
}

async function run(
  sandbox: AllocatedSandbox,
  command: string,
  extra: { env?: Record<string, string>; signal?: AbortSignal; onOutput?: (text: string) => void } = {},
) {
  const chunks: Buffer[] = [];
  const result = await provider.exec(sandbox, {
    command,
    cwd: sandbox.cwd,
    env: { PATH, ...extra.env },
    onOutput: (chunk) => {
      chunks.push(chunk);
      extra.onOutput?.(chunk.toString('utf8'));
    },
    ...(extra.signal ? { signal: extra.signal } : {}),
  });
  return { ...result, output: Buffer.concat(chunks).toString('utf8') };
}

function workspace(sandbox: AllocatedSandbox): string {
  const dir = standIn.workspaceOf(NAMESPACE, sandbox.sandboxId);
  if (!dir) throw new Error(`no pod ${sandbox.sandboxId}`);
  return dir;
}

async function allocationError(request: Partial<AllocateRequest>): Promise<AllocationError> {
  const error = await allocate(request).then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!(error instanceof AllocationError)) throw new Error(`expected an AllocationError, got ${String(error)}`);
  return error;
}

function lastCreatedPod(): string {
  const created = standIn.callsOf('pods', 'create').at(-1);
  return (created?.body as { metadata: { name: string } }).metadata.name;
}

/** Runs the shim the way an SDK does: the launch's executable, env (plus what the SDK adds) and cwd. */
function runShim(launch: HarnessLaunch, argv: string[], options: { stdin?: string; env?: Record<string, string>; cwd?: string } = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(launch.executablePath ?? 'missing', argv, {
      env: { ...launch.env, ...options.env },
      cwd: options.cwd ?? launch.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
    child.stdin.end(options.stdin ?? '');
  });
}

/** The signals the client sent to commands in the sandbox's Pod (its `ars-kill` execs). */
function killsOf(sandbox: AllocatedSandbox): string[] {
  return standIn
    .callsOf('pods/exec')
    .filter((c) => c.name === sandbox.sandboxId && c.command?.includes('ars-kill'))
    .map((c) => c.command?.at(-1) ?? '');
}

function harnessEnv(sandbox: AllocatedSandbox): Record<string, string> {
  return { PATH, HOME: sandbox.home, LANG: 'C.UTF-8' };
}

describe('allocate makes one labelled Pod per sandbox with the repository on a new working branch', () => {
  it('answers in-Pod paths (no local dir), labels record and run, and creates the missing working branch', async () => {
    const sandbox = await allocate({ sandboxRecordId: 'sbx_abc', runId: 'run-42', workingBranch: 'ars/new-branch', rootDirectory: 'packages/web' });
    try {
      expect(sandbox).toEqual({
        sandboxId: expect.stringMatching(/^k8s-[0-9a-f]{20}$/),
        dir: null,
        repoDir: '/workspace/repo',
        cwd: '/workspace/repo/packages/web',
        home: '/workspace/home',
      });
      expect(standIn.pod(NAMESPACE, sandbox.sandboxId)?.metadata?.labels).toMatchObject({
        'agent-run-service.dev/record-id': 'sbx_abc',
        'agent-run-service.dev/run-id': 'run-42',
      });
      expect(existsSync(join(workspace(sandbox), 'repo', 'packages', 'web', 'index.js'))).toBe(true);
      expect((await run(sandbox, 'git rev-parse --abbrev-ref HEAD')).output).toBe('ars/new-branch\n');
    } finally {
      await provider.release(sandbox);
    }
  });

  it('a sandbox without a run has no run label', async () => {
    const sandbox = await allocate({ runId: null });
    try {
      const labels = standIn.pod(NAMESPACE, sandbox.sandboxId)?.metadata?.labels ?? {};
      expect(labels['agent-run-service.dev/record-id']).toBe('sbx_test1');
      expect(labels).not.toHaveProperty('agent-run-service.dev/run-id');
    } finally {
      await provider.release(sandbox);
    }
  });
});

describe('exec runs a shell command in the Pod and resolves with its exit code', () => {
  let sandbox: AllocatedSandbox;
  beforeAll(async () => {
    sandbox = await allocate({ rootDirectory: 'packages/web' });
  });
  afterAll(async () => {
    await provider.release(sandbox);
  });

  it('interleaves stdout and stderr into onOutput, in the cwd, with exactly the given environment', async () => {
    const result = await run(sandbox, 'echo out; echo err >&2; ls; printf "%s\\n" "$GREETING"; exit 3', { env: { GREETING: 'hello there' } });
    expect(result.exitCode).toBe(3);
    expect(result.aborted).toBe(false);
    expect(result.output.split('\n').sort()).toEqual(['', 'err', 'hello there', 'index.js', 'out']);
    expect((await run(sandbox, 'true')).exitCode).toBe(0);
  });

  it('an abort ends the command (TERM to its process group) and resolves aborted', async () => {
    const controller = new AbortController();
    const result = await run(sandbox, 'echo started; sleep 60; echo never', { signal: controller.signal, onOutput: () => controller.abort() });
    expect(result.aborted).toBe(true);
    expect(result.exitCode).toBe(143);
    expect(result.output).toBe('started\n');
  });

  it('an already aborted signal runs nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    const before = standIn.callsOf('pods/exec').length;
    expect(await run(sandbox, 'echo x', { signal: controller.signal })).toEqual({ exitCode: null, aborted: true, output: '' });
    expect(standIn.callsOf('pods/exec')).toHaveLength(before);
  });
});

describe('previewEndpoint is the Pod IP and a random port where a server started by exec answers', () => {
  it(
    'a node server listening on PORT in the Pod answers on the URL',
    async () => {
      const sandbox = await allocate();
      const controller = new AbortController();
      try {
        const { port, url } = await provider.previewEndpoint(sandbox);
        expect(port).toBeGreaterThanOrEqual(20_000);
        expect(port).toBeLessThanOrEqual(45_000);
        expect(url).toBe(`http://127.0.0.1:${port}`);
        const program = `require('http').createServer((q, s) => s.end('preview from ' + require('path').basename(process.cwd()))).listen(Number(process.env.PORT))`;
        const server = run(sandbox, `exec node -e "${program}"`, { env: { PORT: String(port) }, signal: controller.signal });
        let body = '';
        for (let i = 0; i < 600 && body === ''; i++) {
          body = await fetch(url).then(
            (response) => response.text(),
            () => '',
          );
          if (body === '') await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(body).toBe('preview from repo');
        controller.abort();
        expect((await server).aborted).toBe(true);
      } finally {
        controller.abort();
        await provider.release(sandbox);
      }
    },
    SLOW,
  );
});

describe('launchHarness: the harness CLI runs in the Pod, driven by the real adapters through the local shim', () => {
  it.each(HARNESSES)(
    '%s: events, a file written in the Pod, the SDK key in the Pod env and never on a command line',
    async (harness) => {
      const sandbox = await allocate();
      const apiKey = `sk-test-${harness}-${Date.now()}-secret`;
      try {
        const launch = await provider.launchHarness(sandbox, {
          harness,
          executablePath: standInExecutable(harness),
          env: harnessEnv(sandbox),
          cwd: sandbox.cwd,
        });
        expect(launch.executablePath).toMatch(/bin\/pod-exec-shim\.mjs$/);
        expect(launch.cwd).not.toBe(sandbox.cwd);
        expect(JSON.stringify(launch)).not.toContain(standIn.token);
        const events: HarnessEvent[] = [];
        const result = await runHarness({
          harness,
          prompt: `@say hi\n@shell pwd\n@write notes.txt hello\n@shell printenv ${KEY_NAME[harness]}`,
          cwd: launch.cwd,
          env: launch.env,
          apiKey,
          signal: new AbortController().signal,
          ...(launch.executablePath ? { executablePath: launch.executablePath } : {}),
          onEvent: async (event) => {
            events.push(event);
          },
        });
        await launch.close();
        expect(result).toMatchObject({ status: 'success' });
        expect(events[0]?.type).toBe('stream_started');
        expect(events.find((e) => e.type === 'assistant_message')?.message).toBe('hi');
        const shells = events.filter((e) => e.type === 'tool_call' && e.payload.kind === 'shell');
        // `pwd` in the Pod: its work tree on the /workspace volume.
        expect(String(shells[0]?.payload.output).trim()).toBe('/workspace/repo');
        // The SDK put the key in the shim's environment; it reached the Pod's process through exec's stdin.
        expect(String(shells[1]?.payload.output).trim()).toBe(apiKey);
        // Absolute: the CLI reports paths of the Pod, which the adapter cannot relate to the shim's local cwd.
        expect(events.find((e) => e.type === 'file_change')?.message).toMatch(/\/repo\/notes\.txt$/);
        expect(events.at(-1)?.type).toBe('completed');
        expect(readFileSync(join(workspace(sandbox), 'repo', 'notes.txt'), 'utf8')).toBe('hello');

        const execs = standIn.callsOf('pods/exec').filter((c) => c.name === sandbox.sandboxId);
        expect(execs.some((c) => c.command?.includes(standInExecutable(harness)))).toBe(true);
        for (const call of execs) {
          expect(JSON.stringify(call.command)).not.toContain(apiKey);
          expect(JSON.stringify(call.command)).not.toContain(standIn.token);
        }
      } finally {
        await provider.release(sandbox);
      }
    },
    SLOW,
  );
});

describe('an aborted harness ends its process in the Pod', () => {
  it.each(HARNESSES)(
    '%s: abort during @sleep 30000 → cancelled, and the CLI in the Pod is gone',
    async (harness) => {
      const sandbox = await allocate();
      try {
        const launch = await provider.launchHarness(sandbox, {
          harness,
          executablePath: standInExecutable(harness),
          env: harnessEnv(sandbox),
          cwd: sandbox.cwd,
        });
        const controller = new AbortController();
        let pid: number | null = null;
        const result = await runHarness({
          harness,
          // `$PPID` of the shell is the harness CLI in the Pod (a local process in the stand-in).
          prompt: '@shell echo $PPID\n@sleep 30000\n@say too late',
          cwd: launch.cwd,
          env: launch.env,
          signal: controller.signal,
          ...(launch.executablePath ? { executablePath: launch.executablePath } : {}),
          onEvent: async (event) => {
            if (event.type === 'tool_call' && pid === null) {
              pid = Number(String(event.payload.output).trim());
              controller.abort();
            }
          },
        });
        await launch.close();
        expect(result.status).toBe('cancelled');
        expect(pid).toEqual(expect.any(Number));
        expect(await waitFor(`the harness process ${String(pid)} to be gone`, () => !isAlive(pid as number), 30_000)).toBe(true);
        if (harness === 'codex') {
          // Codex's SDK kills the shim at once: the relay TERMs the CLI (Claude's SDK closes stdin first, which ends the stand-in by itself).
          expect(killsOf(sandbox)).toContain('TERM');
        }
      } finally {
        await provider.release(sandbox);
      }
    },
    SLOW,
  );
});

describe("HOME's files written into a Pod and read back: a conversation's thread kept from one Pod for the next", () => {
  it('files written under HOME come back under the folder asked for, and only those; past the limit, HomeFilesTooLarge', async () => {
    const sandbox = await allocate();
    try {
      await provider.homeFiles.write(sandbox, [
        { path: '.codex/sessions/2026/11/28/rollout-2026-11-28T09-00-00-a.jsonl', content: '{"say":"é"}\n' },
        { path: '.claude/projects/-workspace-repo/t.jsonl', content: 'another harness\n' },
      ]);
      const copy = await mkdtemp(join(tmpdir(), 'pod-home-'));
      await provider.homeFiles.read(sandbox, ['.codex/sessions'], copy, 1_000);
      expect(readFileSync(join(copy, '.codex/sessions/2026/11/28/rollout-2026-11-28T09-00-00-a.jsonl'), 'utf8')).toBe('{"say":"é"}\n');
      expect(existsSync(join(copy, '.claude'))).toBe(false);
      await expect(provider.homeFiles.read(sandbox, ['.codex/sessions'], await mkdtemp(join(tmpdir(), 'pod-home-')), 5)).rejects.toBeInstanceOf(
        HomeFilesTooLarge,
      );
    } finally {
      await provider.release(sandbox);
    }
  });
});

describe("a CLI in a Pod reaches its model only through its own door on this service's model gateway: a credential, never a company key", () => {
  const COMPANY_OPENAI_KEY = 'sk-company-openai-k8s-0123456789abcdef';
  const COMPANY_ANTHROPIC_KEY = 'sk-ant-company-k8s-0123456789abcdef';
  /** The model provider, outside every Pod (OpenAI or Anthropic in production). */
  let modelProvider: Server;
  const modelCalls: { url: string; headers: IncomingHttpHeaders }[] = [];
  let gatewayed: KubernetesProvider;
  let gatewayUrl: string;

  /** A node one-liner for `@shell` in the Pod: one POST to the gateway with the CLI's key (from its env), its status and body on one line. */
  const callFromPod = (path: string, header: 'authorization' | 'x-api-key', keyVariable: string): string => {
    const value = header === 'authorization' ? `'Bearer '+process.env.${keyVariable}` : `process.env.${keyVariable}`;
    const script = `fetch(${JSON.stringify(`${gatewayUrl}${path}`)},{method:'POST',headers:{${JSON.stringify(header)}:${value}},body:'{}'}).then(async r=>console.log(r.status,await r.text()),e=>console.log('error',e.cause?.code??e.message))`;
    return `@shell node -e ${JSON.stringify(script)}`;
  };

  /** One request from this process (127.0.0.1, or another loopback address standing for another Pod) with a credential. */
  const callFrom = (localAddress: string, credential: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const url = new URL(`${gatewayUrl}/v1/responses`);
      const req = httpRequest(
        { host: url.hostname, port: Number(url.port), path: url.pathname, method: 'POST', localAddress, headers: { authorization: `Bearer ${credential}` } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end('{}');
    });

  beforeAll(async () => {
    modelProvider = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        modelCalls.push({ url: req.url ?? '', headers: req.headers });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ url: req.url, usage: { input_tokens: 5, output_tokens: 2 } }));
      });
    });
    await new Promise<void>((resolve) => modelProvider.listen(0, '127.0.0.1', resolve));
    const providerUrl = `http://127.0.0.1:${(modelProvider.address() as AddressInfo).port}`;
    gatewayed = new KubernetesProvider(
      kubernetesSettings({
        K8S_IMAGE: 'ghcr.io/acme/sandbox:1',
        K8S_API_SERVER: standIn.url,
        K8S_TOKEN: standIn.token,
        // The stand-in runs Pods as processes of this machine: their IP is 127.0.0.1, and so is this instance's.
        MODEL_GATEWAY_POD_IP: '127.0.0.1',
        MODEL_GATEWAY_PORT: '0',
      }),
      {
        pollIntervalMs: 25,
        killGraceMs: 2000,
        modelGateway: new ModelGateway({
          upstreams: { responses: `${providerUrl}/v1`, messages: providerUrl },
          providerKeys: { responses: COMPANY_OPENAI_KEY, messages: COMPANY_ANTHROPIC_KEY },
          runTokenBudget: null,
        }),
      },
    );
    gatewayUrl = (await gatewayed.listen()).url;
  });

  afterAll(async () => {
    await gatewayed?.close();
    modelProvider?.closeAllConnections();
    modelProvider?.close();
  });

  it(
    'the launch names the gateway and a door; the CLI in the Pod calls both APIs with its credential, the provider sees the company key, no Pod variable holds one',
    async () => {
      const sandbox = await allocate();
      try {
        const launch = await gatewayed.launchHarness(sandbox, {
          harness: 'codex',
          executablePath: standInExecutable('codex'),
          env: harnessEnv(sandbox),
          cwd: sandbox.cwd,
          modelAccess: true,
        });
        expect(gatewayUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect(launch.modelBaseUrl).toBe(gatewayUrl);
        const credential = launch.model?.credential ?? '';
        expect(credential).toMatch(/^ars-run-/);
        const before = modelCalls.length;
        const events: HarnessEvent[] = [];
        const result = await runHarness({
          harness: 'codex',
          prompt: [
            callFromPod('/v1/responses', 'authorization', 'CODEX_API_KEY'),
            callFromPod('/v1/messages', 'x-api-key', 'CODEX_API_KEY'),
            callFromPod('/v1/models', 'authorization', 'CODEX_API_KEY'),
            '@shell env | grep -c -e sk-company -e sk-ant-company || true',
          ].join('\n'),
          cwd: launch.cwd,
          env: launch.env,
          // As the run's session does: the door's credential is the CLI's key.
          apiKey: credential,
          modelBaseUrl: launch.modelBaseUrl ?? '',
          signal: new AbortController().signal,
          ...(launch.executablePath ? { executablePath: launch.executablePath } : {}),
          onEvent: async (event) => {
            events.push(event);
          },
        });
        await launch.close();
        expect(result).toMatchObject({ status: 'success' });
        const [responses, messages, models, keysInEnvironment] = events
          .filter((event) => event.type === 'tool_call')
          .map((event) => String(event.payload.output).trim());
        expect(responses).toMatch(/^200 .*"url":"\/v1\/responses"/);
        expect(messages).toMatch(/^200 .*"url":"\/v1\/messages"/);
        expect(models).toMatch(/^404 .*not a model API/);
        expect(keysInEnvironment).toBe('0');
        const calls = modelCalls.slice(before);
        expect(calls.map((call) => call.url)).toEqual(['/v1/responses', '/v1/messages']);
        expect(calls[0]?.headers.authorization).toBe(`Bearer ${COMPANY_OPENAI_KEY}`);
        expect(calls[1]?.headers['x-api-key']).toBe(COMPANY_ANTHROPIC_KEY);
        expect(JSON.stringify(calls)).not.toContain(credential);
        // The gateway counted the run's usage from the provider's answers.
        expect(launch.model?.usage()).toEqual({ inputTokens: 10, cachedInputTokens: 0, outputTokens: 4 });
      } finally {
        await gatewayed.release(sandbox);
      }
    },
    SLOW,
  );

  it("the door answers only the Pod's IP (a copy of its credential elsewhere is 401) and dies with the launch", async () => {
    const sandbox = await allocate();
    try {
      const launch = await gatewayed.launchHarness(sandbox, {
        harness: 'claude-code',
        executablePath: '/bin/sh',
        env: { PATH },
        cwd: sandbox.cwd,
        modelAccess: true,
      });
      const credential = launch.model?.credential ?? '';
      // The stand-in's Pod IP is 127.0.0.1; 127.0.0.2 plays another Pod holding a copy of the credential.
      expect(await callFrom('127.0.0.2', credential)).toBe(401);
      expect(await callFrom('127.0.0.1', credential)).toBe(200);
      await launch.close();
      expect(await callFrom('127.0.0.1', credential)).toBe(401);
    } finally {
      await gatewayed.release(sandbox);
    }
  });

  it('a door a launch left open is closed when its sandbox is released', async () => {
    const sandbox = await allocate();
    const launch = await gatewayed.launchHarness(sandbox, { harness: 'codex', executablePath: '/bin/sh', env: { PATH }, cwd: sandbox.cwd, modelAccess: true });
    expect(await callFrom('127.0.0.1', launch.model?.credential ?? '')).toBe(200);
    await gatewayed.release(sandbox);
    expect(await callFrom('127.0.0.1', launch.model?.credential ?? '')).toBe(401);
    await launch.close();
  });

  it('a company key handed to the SDK as its key (a launch without model access) is withheld from the Pod; the launch has no door', async () => {
    const sandbox = await allocate();
    try {
      const launch = await gatewayed.launchHarness(sandbox, {
        harness: 'codex',
        executablePath: '/bin/sh',
        env: { PATH, LEAKED: `x${COMPANY_ANTHROPIC_KEY}x` },
        cwd: sandbox.cwd,
      });
      expect(launch.modelBaseUrl).toBeUndefined();
      expect(launch.model).toBeUndefined();
      const result = await runShim(launch, ['-c', 'printf "[%s][%s][%s]" "$CODEX_API_KEY" "$LEAKED" "$KEPT"'], {
        env: { CODEX_API_KEY: COMPANY_OPENAI_KEY, KEPT: 'an ordinary value' },
      });
      await launch.close();
      expect(result).toMatchObject({ code: 0, stdout: '[][][an ordinary value]' });
    } finally {
      await gatewayed.release(sandbox);
    }
  });

  it('model access is refused without a gateway, or before it listens; a Pod without an IP gets no door', async () => {
    const sandbox = await allocate();
    const settings = kubernetesSettings({ K8S_IMAGE: 'img', K8S_API_SERVER: standIn.url, K8S_TOKEN: standIn.token, MODEL_GATEWAY_POD_IP: '127.0.0.1' });
    const unlistened = new KubernetesProvider(settings, {
      modelGateway: new ModelGateway({
        upstreams: { responses: 'http://127.0.0.1:9/v1', messages: 'http://127.0.0.1:9' },
        providerKeys: {},
        runTokenBudget: null,
      }),
    });
    try {
      const request = { harness: 'codex' as const, executablePath: '/bin/sh', env: { PATH }, cwd: sandbox.cwd, modelAccess: true };
      await expect(provider.launchHarness(sandbox, request)).rejects.toThrow(/needs the model gateway/);
      await expect(unlistened.launchHarness(sandbox, request)).rejects.toThrow(/does not listen for Pods yet/);
      const pod = gatewayed.attach(sandbox);
      const read = pod.read.bind(pod);
      // A Pod whose status has no IP (hostNetwork aside, not yet assigned): refused rather than a door open to every address.
      pod.read = async () => {
        const seen = await read();
        return { ...seen, status: { ...seen.status, podIP: undefined } };
      };
      await expect(gatewayed.launchHarness(sandbox, request)).rejects.toThrow(/has no IP address/);
    } finally {
      await unlistened.close();
      await gatewayed.release(sandbox);
    }
  });
});

describe('the shim forwards argv, stdin, stdout, stderr, the exit code and the SDK env; a ticket runs one command', () => {
  let sandbox: AllocatedSandbox;
  beforeAll(async () => {
    sandbox = await allocate();
  });
  afterAll(async () => {
    await provider.release(sandbox);
  });

  it('streams both ways; the harness env wins over the shim PATH; the SDK additions get through', async () => {
    const env = { PATH: `${PATH}:/only-in-the-pod`, HOME: sandbox.home };
    const launch = await provider.launchHarness(sandbox, { harness: 'codex', executablePath: '/bin/sh', env, cwd: sandbox.cwd });
    expect(statSync(dirname(launch.env.ARS_POD_EXEC_SOCKET ?? '')).mode & 0o777).toBe(0o700);
    const script = 'cat; echo "to stderr" >&2; printf "[%s][%s][%s]" "$FROM_SDK" "${PATH##*:}" "$(basename "$PWD")"; exit 7';
    const first = await runShim(launch, ['-c', script], { stdin: 'from stdin\n', env: { FROM_SDK: 'added by the sdk' } });
    expect(first).toEqual({ code: 7, stdout: 'from stdin\n[added by the sdk][/only-in-the-pod][repo]', stderr: 'to stderr\n' });

    const again = await runShim(launch, ['-c', 'echo ran twice']);
    expect(again.code).toBe(126);
    expect(again.stderr).toContain('the ticket is unknown, used or revoked');
    await launch.close();
  });

  it('killing the shim (as the SDK aborts) ends the command in the Pod', async () => {
    const launch = await provider.launchHarness(sandbox, { harness: 'codex', executablePath: '/bin/sh', env: { PATH }, cwd: sandbox.cwd });
    const shim = spawn(launch.executablePath ?? 'missing', ['-c', 'echo $$; exec sleep 60'], {
      env: launch.env,
      cwd: launch.cwd,
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    const pid = await new Promise<number>((resolve) => shim.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString('utf8').trim()))));
    expect(isAlive(pid)).toBe(true);
    shim.kill('SIGKILL');
    expect(await waitFor(`the shim ${pid} to be gone`, () => !isAlive(pid), 30_000)).toBe(true);
    expect(killsOf(sandbox)).toContain('TERM');
    await launch.close();
  });

  it('a closed launch refuses its ticket, and runs nothing in the Pod', async () => {
    const launch = await provider.launchHarness(sandbox, { harness: 'codex', executablePath: '/bin/echo', env: { PATH }, cwd: sandbox.cwd });
    await launch.close();
    const before = standIn.callsOf('pods/exec').length;
    // (its local cwd went with it)
    const refused = await runShim(launch, ['never'], { cwd: scratch });
    expect(refused.code).toBe(126);
    expect(standIn.callsOf('pods/exec')).toHaveLength(before);
  });

  it('a CLI that cannot start in the Pod is a non-zero exit with the reason on stderr', async () => {
    const launch = await provider.launchHarness(sandbox, { harness: 'codex', executablePath: '/no/such/cli', env: { PATH }, cwd: sandbox.cwd });
    const result = await runShim(launch, ['exec']);
    await launch.close();
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/no\/such\/cli/);
  });
});

describe('snapshot → release → allocate with restoreFrom brings back the uncommitted tree and HOME', () => {
  it(
    'the archive holds repo/ and home/ (no dependency folders); the restored Pod has the uncommitted file',
    async () => {
      const first = await allocate({ workingBranch: 'ars/snap' });
      const file = join(scratch, 'snap.tar.gz');
      try {
        const made = await run(
          first,
          'echo draft > UNCOMMITTED.md && mkdir -p node_modules/dep && echo x > node_modules/dep/i.js && echo remembered > ../home/notes',
        );
        expect(made.exitCode).toBe(0);
        const { bytes } = await provider.snapshot(first, file);
        expect(bytes).toBe(statSync(file).size);
        const entries = execFileSync('tar', ['-tzf', file], { encoding: 'utf8' }).trim().split('\n');
        expect(new Set(entries.map((e) => e.split('/')[0]))).toEqual(new Set(['repo', 'home']));
        expect(entries).toContain('repo/UNCOMMITTED.md');
        expect(entries.some((e) => e.includes('node_modules'))).toBe(false);
      } finally {
        await provider.release(first);
      }

      const second = await allocate({ workingBranch: 'ars/snap', restoreFrom: file });
      try {
        const restored = await run(second, 'cat UNCOMMITTED.md ../home/notes; git status --porcelain; git rev-parse --abbrev-ref HEAD');
        expect(restored.output).toBe('draft\nremembered\n?? UNCOMMITTED.md\nars/snap\n');
      } finally {
        await provider.release(second);
      }
    },
    SLOW,
  );

  it('a tar failure is an Error with tar message, and no partial file is left', async () => {
    const sandbox = await allocate();
    const file = join(scratch, 'broken.tar.gz');
    try {
      await run(sandbox, 'rm -rf ../home');
      await expect(provider.snapshot(sandbox, file)).rejects.toThrow(/tar exited 2\): .*home/);
      expect(existsSync(file)).toBe(false);
    } finally {
      await provider.release(sandbox);
    }
  });
});

describe('commitAndPush commits in the Pod and pushes from here: the push URL never enters the Pod', () => {
  it('lands on the bare repository working branch; nothing to commit the second time', async () => {
    const sandbox = await allocate({ workingBranch: 'ars/push-1', rootDirectory: 'packages/web' });
    try {
      expect((await run(sandbox, 'echo "made in the pod" > CHANGE.md')).exitCode).toBe(0);
      const pushed = await provider.commitAndPush(sandbox, { workingBranch: 'ars/push-1', pushUrl: repo.url, commitMessage: 'agent: change' });
      expect(pushed).toEqual({ committed: true, commit: expect.stringMatching(/^[0-9a-f]{40}$/) });
      expect(execFileSync('git', ['show', 'ars/push-1:packages/web/CHANGE.md'], { cwd: repo.url, encoding: 'utf8' })).toBe('made in the pod\n');
      expect(execFileSync('git', ['rev-parse', 'ars/push-1'], { cwd: repo.url, encoding: 'utf8' }).trim()).toBe(pushed.commit);
      expect(standIn.callsOf('pods/exec').some((c) => JSON.stringify(c.command).includes(repo.url))).toBe(false);
      const again = await provider.commitAndPush(sandbox, { workingBranch: 'ars/push-1', pushUrl: repo.url, commitMessage: 'agent: nothing' });
      expect(again).toEqual({ committed: false, commit: pushed.commit });
    } finally {
      await provider.release(sandbox);
    }
  });
});

describe('release deletes Pod and Secret by id: safe twice, and a null or foreign id is left alone', () => {
  it('release twice; release of a null id and of a local-… id calls nothing', async () => {
    const sandbox = await allocate();
    await provider.release(sandbox);
    await provider.release({ sandboxId: sandbox.sandboxId, dir: null });
    expect(standIn.pod(NAMESPACE, sandbox.sandboxId)).toBeUndefined();
    expect(standIn.secret(NAMESPACE, `${sandbox.sandboxId}-clone`)).toBeUndefined();
    const deletes = standIn.callsOf('pods', 'delete').filter((c) => c.name === sandbox.sandboxId);
    expect(deletes.map((c) => c.status)).toEqual([200, 404]);

    const before = standIn.calls.length;
    await provider.release({ sandboxId: null, dir: null });
    await provider.release({ sandboxId: 'local-0123456789abcdef0123', dir: join(scratch, 'nothing') });
    expect(standIn.calls).toHaveLength(before);
  });
});

describe('a failed allocation is an AllocationError with its decision code, and its Pod is deleted', () => {
  it.each([
    ['clone_failed', { cloneUrl: '/nonexistent/repository.git' }, 'the repository could not be cloned'],
    ['base_branch_missing', { baseBranch: 'gone' }, 'the base branch "gone" does not exist in the repository'],
    ['root_directory_missing', { rootDirectory: 'no/such/dir' }, 'the root directory "no/such/dir" does not exist'],
  ] as const)('%s', async (code, request, message) => {
    const error = await allocationError(request);
    expect(error.decisionCode).toBe(code);
    expect(error.message).toContain(message);
    const name = lastCreatedPod();
    expect(standIn.pod(NAMESPACE, name)).toBeUndefined();
    expect(standIn.secret(NAMESPACE, `${name}-clone`)).toBeUndefined();
  });

  it('snapshot_restore_failed: a file that is not a snapshot', async () => {
    const file = join(scratch, 'not-a-snapshot.tar.gz');
    await writeFile(file, 'not gzip at all');
    const error = await allocationError({ restoreFrom: file });
    expect(error.decisionCode).toBe('snapshot_restore_failed');
    expect(error.message).toMatch(/^the snapshot could not be restored: /);
    expect(standIn.pod(NAMESPACE, lastCreatedPod())).toBeUndefined();
  });
});

/** The settings of a provider on the stand-in, with more variables. */
function settingsWith(env: Record<string, string>) {
  return kubernetesSettings({
    K8S_IMAGE: 'ghcr.io/acme/sandbox:1',
    K8S_API_SERVER: standIn.url,
    K8S_TOKEN: standIn.token,
    MODEL_GATEWAY_POD_IP: '127.0.0.1',
    ...env,
  });
}

/** The GETs of one Pod the stand-in answered (the status reads). */
function podReads(name: string): number {
  return standIn.calls.filter((c) => c.resource === 'pods' && c.verb === 'get' && c.name === name).length;
}

/** Starts `sleep 30` in the Pod and resolves once it runs; `done` is the exec's result. */
async function sleeping(sandbox: AllocatedSandbox): Promise<{ done: Promise<{ exitCode: number | null; output: string }> }> {
  let said = '';
  const done = run(sandbox, 'echo started; exec sleep 30', { onOutput: (text) => (said += text) });
  await waitFor(
    () => `the command to start in ${sandbox.sandboxId}; said: ${JSON.stringify(said)}`,
    () => said.includes('started'),
    { timeoutMs: 30_000, intervalMs: 20 },
  );
  return { done };
}

describe("limitsOf: the limits in force are the settings' Kubernetes quantities (memory and disk in MB, CPUs), pids the kubelet's podPidsLimit as configured, for this provider's sandboxes only", () => {
  it('defaults: 4Gi, 2, 10Gi → 4096 MB, 2 CPUs, 10240 MB; without K8S_POD_PIDS_LIMIT pids is null and named in not_enforced; no API call', () => {
    const before = standIn.calls.length;
    expect(provider.limitsOf({ sandboxId: 'k8s-0123456789abcdef0123', dir: null })).toEqual({
      memory_mb: 4096,
      pids: null,
      cpus: 2,
      disk_mb: 10240,
      not_enforced: ['pids'],
    });
    expect(standIn.calls).toHaveLength(before);
  });

  it('configured: 512Mi, 500m, 10G and K8S_POD_PIDS_LIMIT 2048; a null or local-… id has none', async () => {
    const configured = new KubernetesProvider(
      settingsWith({
        K8S_MEMORY_REQUEST: '256Mi',
        K8S_MEMORY_LIMIT: '512Mi',
        K8S_CPU_LIMIT: '500m',
        K8S_EPHEMERAL_STORAGE_LIMIT: '10G',
        K8S_POD_PIDS_LIMIT: '2048',
      }),
    );
    try {
      expect(configured.limitsOf({ sandboxId: 'k8s-0123456789abcdef0123', dir: null })).toEqual({
        memory_mb: 512,
        pids: 2048,
        cpus: 0.5,
        disk_mb: 9536.74,
        not_enforced: [],
      });
      expect(configured.limitsOf({ sandboxId: null, dir: null })).toBeNull();
      expect(configured.limitsOf({ sandboxId: 'local-0123456789abcdef0123', dir: join(scratch, 'nothing') })).toBeNull();
      expect(await configured.limitReached({ sandboxId: 'local-0123456789abcdef0123', dir: join(scratch, 'nothing') })).toBeNull();
    } finally {
      await configured.close();
    }
  });
});

describe("limitReached: the Pod's container terminated OOMKilled (the kubelet's report) is the memory limit, named K8S_MEMORY_LIMIT", () => {
  it('a command running in the Pod is killed (137), and the fresh check reads the OOMKilled container', async () => {
    const sandbox = await allocate();
    try {
      const { done } = await sleeping(sandbox);
      expect(await provider.limitReached(sandbox, { fresh: true })).toBeNull();
      await standIn.oomKill(NAMESPACE, sandbox.sandboxId);
      expect((await done).exitCode).toBe(137);
      expect(await provider.limitReached(sandbox, { fresh: true })).toEqual({
        code: 'memory_limit',
        limits: { memory_mb: 4096, pids: null, cpus: 2, disk_mb: 10240 },
        setting: 'K8S_MEMORY_LIMIT',
      });
    } finally {
      await provider.release(sandbox);
    }
  });
});

describe("limitReached: the Pod evicted for its ephemeral storage is the disk limit (K8S_EPHEMERAL_STORAGE_LIMIT); evicted for the node's shortage it is not the sandbox's limit", () => {
  it('"Pod ephemeral local storage usage exceeds the total limit of containers 10Gi." → disk_limit; "The node was low on resource: memory." → null', async () => {
    const [storage, node] = await Promise.all([allocate(), allocate()]);
    try {
      const [inStorage, inNode] = await Promise.all([sleeping(storage), sleeping(node)]);
      await standIn.evict(NAMESPACE, storage.sandboxId, kubeletEvictionMessage.podEphemeralStorage('10Gi'));
      await standIn.evict(NAMESPACE, node.sandboxId, kubeletEvictionMessage.nodeLow('memory'));
      expect((await inStorage.done).exitCode).toBe(137);
      expect((await inNode.done).exitCode).toBe(137);
      expect(await provider.limitReached(storage, { fresh: true })).toEqual({
        code: 'disk_limit',
        limits: { memory_mb: 4096, pids: null, cpus: 2, disk_mb: 10240 },
        setting: 'K8S_EPHEMERAL_STORAGE_LIMIT',
      });
      expect(await provider.limitReached(node, { fresh: true })).toBeNull();
    } finally {
      await Promise.all([provider.release(storage), provider.release(node)]);
    }
  });
});

describe('limitReached reads a Pod at most once per limitReadIntervalMs for the polls; a fresh check reads; a Pod that is gone is null', () => {
  it('polls inside the interval answer the last read without a GET; fresh reads; a limit once read stays; after release a fresh check is null', async () => {
    const throttled = new KubernetesProvider(settingsWith({}), { pollIntervalMs: 25, limitReadIntervalMs: 600_000 });
    const sandbox = await throttled.allocate({
      sandboxRecordId: 'sbx_throttle',
      runId: 'run-throttle',
      cloneUrl: repo.url,
      baseBranch: 'main',
      workingBranch: 'ars/throttle',
      rootDirectory: null,
    });
    const ref = { sandboxId: sandbox.sandboxId, dir: null };
    try {
      const start = podReads(sandbox.sandboxId);
      expect(await throttled.limitReached(ref)).toBeNull();
      expect(podReads(sandbox.sandboxId)).toBe(start + 1);

      await standIn.oomKill(NAMESPACE, sandbox.sandboxId);
      // The polls inside the interval: the last read's answer, no GET.
      for (let poll = 0; poll < 5; poll += 1) expect(await throttled.limitReached(ref)).toBeNull();
      expect(podReads(sandbox.sandboxId)).toBe(start + 1);

      // The check after the harness ended reads.
      expect(await throttled.limitReached(ref, { fresh: true })).toMatchObject({ code: 'memory_limit' });
      expect(podReads(sandbox.sandboxId)).toBe(start + 2);
      expect(await throttled.limitReached(ref)).toMatchObject({ code: 'memory_limit' });
      expect(await throttled.limitReached(ref, { fresh: true })).toMatchObject({ code: 'memory_limit' });
      expect(podReads(sandbox.sandboxId)).toBe(start + 2);
    } finally {
      await throttled.release(ref);
      await throttled.close();
    }
    // Gone: a 404 is null, not a throw.
    expect(standIn.pod(NAMESPACE, sandbox.sandboxId)).toBeUndefined();
    expect(await provider.limitReached(ref, { fresh: true })).toBeNull();
    expect(standIn.calls.at(-1)).toMatchObject({ resource: 'pods', verb: 'get', name: sandbox.sandboxId, status: 404 });
  });

  it('an API failure rejects with the mapped KubernetesError (the session counts it as nothing reached)', async () => {
    const refused = new KubernetesProvider(settingsWith({ K8S_TOKEN: 'not-the-token' }));
    try {
      await expect(refused.limitReached({ sandboxId: 'k8s-0123456789abcdef0123', dir: null }, { fresh: true })).rejects.toMatchObject({
        name: 'KubernetesError',
        reason: 'unauthorized',
      });
    } finally {
      await refused.close();
    }
  });
});
