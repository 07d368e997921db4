// A Pod's way out: the shared egress proxy, a grant per clone, command and harness launch, bound to
// the Pod and to its phase's allowlist. Pods are the stand-in API server's local processes (their IP
// is 127.0.0.1); the outside host is an HTTP server in a network namespace of the test's own
// (egress/testing/netnsTestHost.ts), named `testhost.example` by the proxy's injected lookup: these
// machines have no internet, and no test traffic goes anywhere else.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { KubernetesStandIn } from '@ars/kubernetes-stand-in';
import { parseEgressAllow } from '../../domain/egressPolicy.js';
import type { EgressDecisionEvent } from '../../egress/egressProxy.js';
import type { EgressDecisionPhase, SandboxOwner } from '../../egress/sandboxEgress.js';
import { startNetnsTestHost, TEST_HOST_GREETING, type NetnsTestHost } from '../../egress/testing/netnsTestHost.js';
import { assertStandInsBuilt } from '../../harness/testing.js';
import { ModelGateway } from '../../modelAccess/modelGateway.js';
import { AllocationError, type AllocateRequest, type AllocatedSandbox, type HarnessLaunch } from '../provider.js';
import { directHosts, KubernetesProvider } from './kubernetesProvider.js';
import { kubernetesSettings } from './settings.js';
import { bareRepository, type BareRepository } from './testing.js';

const PATH = process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin';
const TEST_PORT = 8080;

let standIn: KubernetesStandIn;
let repo: BareRepository;
let testHost: NetnsTestHost;
let provider: KubernetesProvider;
const decisions: { owner: SandboxOwner; phase: EgressDecisionPhase; event: EgressDecisionEvent }[] = [];

beforeAll(async () => {
  assertStandInsBuilt();
  testHost = await startNetnsTestHost({ port: TEST_PORT });
  standIn = await KubernetesStandIn.start();
  repo = await bareRepository();
  provider = new KubernetesProvider(
    kubernetesSettings({
      K8S_IMAGE: 'ghcr.io/acme/sandbox:1',
      K8S_API_SERVER: standIn.url,
      K8S_TOKEN: standIn.token,
      MODEL_GATEWAY_POD_IP: '127.0.0.1',
      MODEL_GATEWAY_PORT: '0',
      EGRESS_PROXY_PORT: '0',
    }),
    {
      pollIntervalMs: 25,
      killGraceMs: 2000,
      modelGateway: new ModelGateway({
        upstreams: { responses: 'http://127.0.0.1:9/v1', messages: 'http://127.0.0.1:9' },
        providerKeys: {},
        runTokenBudget: null,
      }),
      egress: {
        install: parseEgressAllow(`testhost.example:${TEST_PORT}`),
        // A name the lookup never resolves: the agent's list must never open what only the install list names.
        agent: parseEgressAllow('agent-only.example'),
        lookup: (host) =>
          host === 'testhost.example'
            ? Promise.resolve([testHost.address])
            : Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' })),
        onDecision: (owner, phase, event) => decisions.push({ owner, phase, event }),
      },
    },
  );
  await provider.listen();
}, 60_000);

afterAll(async () => {
  await provider?.close();
  await standIn?.stop();
  await repo?.remove();
  await testHost?.close();
});

function allocate(overrides: Partial<AllocateRequest> = {}): Promise<AllocatedSandbox> {
  return provider.allocate({
    sandboxRecordId: 'sbx_egress',
    runId: 'run-egress',
    cloneUrl: repo.url,
    baseBranch: 'main',
    workingBranch: 'ars/work',
    rootDirectory: null,
    ...overrides,
  });
}

async function run(sandbox: AllocatedSandbox, command: string, egress?: 'install' | 'agent'): Promise<{ exitCode: number | null; output: string }> {
  const chunks: Buffer[] = [];
  const result = await provider.exec(sandbox, {
    command,
    cwd: sandbox.cwd,
    env: { PATH },
    onOutput: (chunk) => chunks.push(chunk),
    ...(egress ? { egress } : {}),
  });
  return { exitCode: result.exitCode, output: Buffer.concat(chunks).toString('utf8') };
}

/** A GET through a proxy URL (its user part as Proxy-Authorization), as a tool in the Pod would send it. */
function getThrough(proxyUrl: string, target: string): Promise<number> {
  const proxy = new URL(proxyUrl);
  const authorization = `Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}`;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: proxy.hostname, port: Number(proxy.port), path: target, headers: { 'proxy-authorization': authorization, connection: 'close' }, timeout: 5_000 },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 5 s')));
    req.on('error', reject);
    req.end();
  });
}

describe('an install step reaches what SANDBOX_INSTALL_EGRESS_ALLOW names, through the egress proxy, under a grant of its own', () => {
  it('curl in the Pod reaches the allowlisted test host through HTTP_PROXY; the decision is the sandbox’s, phase install', async () => {
    const sandbox = await allocate();
    try {
      decisions.length = 0;
      const result = await run(sandbox, `curl -sS --max-time 10 http://testhost.example:${TEST_PORT}/`, 'install');
      expect(result).toEqual({ exitCode: 0, output: expect.stringContaining(TEST_HOST_GREETING) });
      expect(decisions).toEqual([
        {
          owner: { sandboxRecordId: 'sbx_egress', runId: 'run-egress' },
          phase: 'install',
          event: { kind: 'egress_allowed', host: 'testhost.example', port: TEST_PORT, address: testHost.address },
        },
      ]);
    } finally {
      await provider.release(sandbox);
    }
  });

  it('a host the list does not name is refused (403), with an egress_refused event', async () => {
    const sandbox = await allocate();
    try {
      decisions.length = 0;
      const result = await run(sandbox, `curl -sS -o /dev/null -w '%{http_code}' --max-time 10 http://elsewhere.example:${TEST_PORT}/`, 'install');
      expect(result.output).toBe('403');
      expect(decisions).toEqual([
        expect.objectContaining({ phase: 'install', event: expect.objectContaining({ kind: 'egress_refused', host: 'elsewhere.example' }) }),
      ]);
    } finally {
      await provider.release(sandbox);
    }
  });

  it('the grant dies with its command: the proxy URL it was given is refused (407) once the command ended', async () => {
    const sandbox = await allocate();
    try {
      const result = await run(sandbox, 'printf %s "$HTTP_PROXY"', 'install');
      const proxyUrl = result.output;
      expect(new URL(proxyUrl).username).toBe('ars');
      expect(new URL(proxyUrl).password).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(await getThrough(proxyUrl, `http://testhost.example:${TEST_PORT}/`)).toBe(407);
    } finally {
      await provider.release(sandbox);
    }
  });
});

/** Runs the launch's shim as an SDK would, with no arguments; its stdout. */
function runShim(launch: HarnessLaunch): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(launch.executablePath ?? 'missing', [], { env: launch.env, cwd: launch.cwd, stdio: ['ignore', 'pipe', 'inherit'] });
    const out: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.on('error', reject);
    child.on('close', () => resolve(Buffer.concat(out).toString('utf8')));
  });
}

describe('the agent’s phase follows SANDBOX_EGRESS_ALLOW alone: one phase never uses another’s allowlist', () => {
  it('an agent-phase command is refused the host only the install list names (403, phase agent)', async () => {
    const sandbox = await allocate();
    try {
      decisions.length = 0;
      const result = await run(sandbox, `curl -sS -o /dev/null -w '%{http_code}' --max-time 10 http://testhost.example:${TEST_PORT}/`, 'agent');
      expect(result.output).toBe('403');
      expect(decisions).toEqual([
        expect.objectContaining({ phase: 'agent', event: expect.objectContaining({ kind: 'egress_refused', host: 'testhost.example' }) }),
      ]);
    } finally {
      await provider.release(sandbox);
    }
  });

  it('the harness CLI in the Pod gets a grant of its own with its launch (the model gateway reached directly), dead once the launch closes', async () => {
    const sandbox = await allocate();
    try {
      // The in-Pod command is `env`: what the CLI would see.
      const launch = await provider.launchHarness(sandbox, {
        harness: 'codex',
        executablePath: '/usr/bin/env',
        env: { PATH, HOME: sandbox.home },
        cwd: sandbox.cwd,
        modelAccess: true,
      });
      const seen = Object.fromEntries(
        (await runShim(launch))
          .split('\n')
          .filter((line) => line.includes('='))
          .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
      );
      const proxyUrl = seen.HTTPS_PROXY ?? '';
      expect(new URL(proxyUrl).password).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect([seen.https_proxy, seen.HTTP_PROXY, seen.http_proxy]).toEqual([proxyUrl, proxyUrl, proxyUrl]);
      expect(seen.NO_PROXY).toBe(['localhost', '127.0.0.1', '::1', ...directHosts([], launch.modelBaseUrl ?? null)].join(','));
      expect(await getThrough(proxyUrl, 'http://agent-only.example/')).toBe(502);
      await launch.close();
      expect(await getThrough(proxyUrl, 'http://agent-only.example/')).toBe(407);
    } finally {
      await provider.release(sandbox);
    }
  });
});

describe("a Pod's clone goes through the proxy under a grant for the clone URL's host alone, closed once the Pod runs", () => {
  it('an http(s) clone URL: the init container connects through the proxy (a clone decision for that host), and its failure is the clone’s', async () => {
    decisions.length = 0;
    // The test host answers every request with its greeting, not git's protocol: the clone fails, after the proxy let it through.
    const error = await allocate({ cloneUrl: `http://testhost.example:${TEST_PORT}/acme/app.git` }).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(AllocationError);
    expect((error as AllocationError).decisionCode).toBe('clone_failed');
    expect(decisions).toContainEqual({
      owner: { sandboxRecordId: 'sbx_egress', runId: 'run-egress' },
      phase: 'clone',
      event: { kind: 'egress_allowed', host: 'testhost.example', port: TEST_PORT, address: testHost.address },
    });
  });

  it('a clone URL that is a path (or an address, or a K8S_NO_PROXY host) is given no proxy: the clone goes direct', async () => {
    decisions.length = 0;
    const sandbox = await allocate();
    try {
      expect(decisions).toEqual([]);
    } finally {
      await provider.release(sandbox);
    }
  });
});

describe('a Pod reaches directly only the K8S_NO_PROXY hosts and its model gateway', () => {
  it('NO_PROXY names the configured hosts and the gateway URL’s host (an IPv6 one without brackets)', () => {
    expect(directHosts(['git.internal.example'], 'http://10.244.0.7:8090')).toEqual(['git.internal.example', '10.244.0.7']);
    expect(directHosts([], 'http://[fd00::7]:8090')).toEqual(['fd00::7']);
    expect(directHosts(['.corp.example'], null)).toEqual(['.corp.example']);
  });
});
