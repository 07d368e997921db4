// A harness CLI's one way to a model, under the real bubblewrap: the CLI (here a stand-in whose
// `@shell` runs inside the same sandbox, so it probes what the CLI can reach) calls the model APIs on
// its own loopback and reaches the provider through the model proxy's socket; nothing else of the
// host answers, and the door closes with the harness.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { assertStandInsBuilt } from '../harness/testing.js';
import { runHarness, standInExecutable, standInFiles, type HarnessEvent, type HarnessResult } from '../harness/index.js';
import { LocalProvider, MODEL_PORT_INSIDE } from '../providers/local/localProvider.js';
import { prepareIsolation, type LocalIsolation } from '../providers/local/localIsolation.js';
import type { AllocatedSandbox, HarnessLaunch } from '../providers/provider.js';
import { commitToBare } from '../testing/sandboxesKit.js';
import { ModelGateway } from './modelGateway.js';

/** The company's keys: the gateway puts them on forwarded requests; no sandbox ever holds them. */
const COMPANY_OPENAI_KEY = 'sk-company-openai-0123456789abcdef';
const COMPANY_ANTHROPIC_KEY = 'sk-ant-company-0123456789abcdef';

let work: string;
let bare: string;
let isolation: LocalIsolation;
let provider: LocalProvider;
let modelProvider: Server;
let hostService: Server;
const modelCalls: { url: string; headers: IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  assertStandInsBuilt();
  work = realpathSync(mkdtempSync(join(tmpdir(), 'ars-model-access-')));
  // The sandbox user (SANDBOX_UID) passes through to the sandboxes under it, as through any SANDBOX_ROOT's parents.
  chmodSync(work, 0o711);
  bare = join(work, 'origin.git');
  execFileSync('git', ['init', '--quiet', '--bare', '-b', 'main', bare]);
  commitToBare(bare, 'main', { 'README.md': '# fixture\n' });
  // The model provider, outside every sandbox (OpenAI or Anthropic in production).
  modelProvider = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      modelCalls.push({ url: req.url ?? '', headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`event: done\ndata: ${JSON.stringify({ url: req.url })}\n\n`);
    });
  });
  await new Promise<void>((resolve) => modelProvider.listen(0, '127.0.0.1', resolve));
  const providerUrl = `http://127.0.0.1:${(modelProvider.address() as AddressInfo).port}`;
  // Another service of the host on its loopback (MongoDB, the gateway…): never reachable.
  hostService = createServer((_req, res) => res.end('host service'));
  await new Promise<void>((resolve) => hostService.listen(0, '127.0.0.1', resolve));
  isolation = await prepareIsolation();
  provider = new LocalProvider(join(work, 'sandboxes'), {
    isolation,
    killGraceMs: 1_000,
    modelGateway: new ModelGateway({
      upstreams: { responses: `${providerUrl}/v1`, messages: providerUrl },
      providerKeys: { responses: COMPANY_OPENAI_KEY, messages: COMPANY_ANTHROPIC_KEY },
      runTokenBudget: null,
    }),
  });
});

afterAll(async () => {
  for (const server of [modelProvider, hostService]) {
    server?.closeAllConnections();
    server?.close();
  }
  await provider?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

function allocate(): Promise<AllocatedSandbox> {
  return provider.allocate({ sandboxRecordId: 'record', runId: null, cloneUrl: bare, baseBranch: 'main', workingBranch: 'main', rootDirectory: null });
}

/** One codex turn of the stand-in through the launch: its result and events. */
async function runTurn(launch: HarnessLaunch, prompt: string): Promise<{ result: HarnessResult; events: HarnessEvent[] }> {
  const events: HarnessEvent[] = [];
  const result = await runHarness({
    harness: 'codex',
    prompt,
    cwd: launch.cwd,
    env: launch.env,
    signal: new AbortController().signal,
    ...(launch.executablePath ? { executablePath: launch.executablePath } : {}),
    onEvent: (event) => {
      events.push(event);
      return Promise.resolve();
    },
  });
  return { result, events };
}

/** A node one-liner run by the CLI's shell: one HTTP call, its status and body (or its error) on one line. */
function fetchLine(url: string, method = 'POST', headers: Record<string, string> = {}): string {
  const script = `fetch(${JSON.stringify(url)},{method:${JSON.stringify(method)},headers:${JSON.stringify(headers)},body:${method === 'POST' ? '\'{"model":"m"}\'' : 'undefined'}}).then(async r=>console.log(r.status,await r.text()),e=>console.log('error',e.cause?.code??e.message))`;
  return `node -e ${JSON.stringify(script)}`;
}

describe('a CLI that calls a model reaches it on its own loopback, through the proxy’s socket, and nothing else', () => {
  test('both model APIs answer on 127.0.0.1:<port>; another path is refused; the host’s services and the internet stay unreachable', async () => {
    const sandbox = await allocate();
    const node = dirname(realpathSync(process.execPath));
    try {
      const launch = await provider.launchHarness(sandbox, {
        harness: 'codex',
        executablePath: standInExecutable('codex'),
        cliFiles: standInFiles('codex'),
        env: { PATH: `${node}:/usr/bin:/bin`, HOME: sandbox.home },
        cwd: sandbox.cwd,
        modelAccess: true,
      });
      expect(launch.modelBaseUrl).toBe(`http://127.0.0.1:${MODEL_PORT_INSIDE}`);
      expect(launch.contained).toBe(true);
      const base = launch.modelBaseUrl ?? '';
      const credential = launch.model?.credential ?? '';
      expect(credential).toMatch(/^ars-run-/);
      const hostPort = (hostService.address() as AddressInfo).port;
      const { result, events } = await runTurn(
        launch,
        [
          `@shell ${fetchLine(`${base}/v1/responses`, 'POST', { authorization: `Bearer ${credential}` })}`,
          `@shell ${fetchLine(`${base}/v1/messages?beta=true`, 'POST', { 'x-api-key': credential })}`,
          `@shell ${fetchLine(`${base}/v1/models`, 'GET', { authorization: `Bearer ${credential}` })}`,
          `@shell ${fetchLine(`${base}/v1/responses`, 'POST')}`,
          `@shell ${fetchLine(`${base}/v1/messages`, 'POST', { 'x-api-key': 'ars-run-another-runs-credential' })}`,
          `@shell ${fetchLine(`http://127.0.0.1:${hostPort}/`, 'GET')}`,
          `@shell ${fetchLine('http://1.1.1.1/', 'GET')}`,
          '@shell ls -l /run/ars',
          "@shell cat /proc/[0-9]*/environ | tr '\\0' '\\n' | grep -c -e sk-company -e sk-ant-company || true",
        ].join('\n'),
      );
      await launch.close();
      expect(result).toMatchObject({ status: 'success' });
      const [responses, messages, models, anonymous, stranger, host, internet, listing, keysInEnvironments] = events
        .filter((event) => event.type === 'tool_call')
        .map((event) => String(event.payload.output).trim());
      expect(responses).toBe('200 event: done\ndata: {"url":"/v1/responses"}');
      expect(messages).toBe('200 event: done\ndata: {"url":"/v1/messages?beta=true"}');
      expect(models).toMatch(/^404 .*not a model API/);
      expect(anonymous).toMatch(/^401 .*credential was refused/);
      expect(stranger).toMatch(/^401 .*credential was refused/);
      expect(host).toMatch(/^error (ECONNREFUSED|fetch failed)/);
      expect(internet).toMatch(/^error (ENETUNREACH|ECONNREFUSED|fetch failed)/);
      // One socket, nothing else of the host's runtime directory.
      expect(listing?.split('\n').filter((line) => !line.startsWith('total'))).toEqual([expect.stringMatching(/^srw------- .* model\.sock$/)]);
      // No process of the sandbox holds a company key in its environment.
      expect(keysInEnvironments).toBe('0');
      // Only the two answered calls reached the provider, each with the company's key, never the run's credential.
      expect(modelCalls.map((call) => call.url)).toEqual(['/v1/responses', '/v1/messages?beta=true']);
      expect(modelCalls[0]?.headers.authorization).toBe(`Bearer ${COMPANY_OPENAI_KEY}`);
      expect(modelCalls[0]?.headers['x-api-key']).toBeUndefined();
      expect(modelCalls[1]?.headers['x-api-key']).toBe(COMPANY_ANTHROPIC_KEY);
      expect(modelCalls[1]?.headers.authorization).toBeUndefined();
      expect(JSON.stringify(modelCalls)).not.toContain(credential);
    } finally {
      await provider.release(sandbox);
    }
  });

  test('the proxy’s socket is gone once the harness ended (launch.close)', async () => {
    const sandbox = await allocate();
    try {
      const socketsDir = join(isolation.runtimeDir, 'model');
      const before = existsSync(socketsDir) ? readdirSync(socketsDir).length : 0;
      const launch = await provider.launchHarness(sandbox, {
        harness: 'claude-code',
        executablePath: standInExecutable('claude-code'),
        cliFiles: standInFiles('claude-code'),
        env: { PATH: '/usr/bin:/bin', HOME: sandbox.home },
        cwd: sandbox.cwd,
        modelAccess: true,
      });
      expect(readdirSync(socketsDir)).toHaveLength(before + 1);
      await launch.close();
      expect(readdirSync(socketsDir)).toHaveLength(before);
    } finally {
      await provider.release(sandbox);
    }
  });
});

describe('a CLI that calls no model gets no door', () => {
  test('without modelAccess: no model base URL, no socket inside, the CLI runs as before', async () => {
    const sandbox = await allocate();
    try {
      const launch = await provider.launchHarness(sandbox, {
        harness: 'codex',
        executablePath: standInExecutable('codex'),
        cliFiles: standInFiles('codex'),
        env: { PATH: '/usr/bin:/bin', HOME: sandbox.home },
        cwd: sandbox.cwd,
      });
      expect(launch.modelBaseUrl).toBeUndefined();
      const { result, events } = await runTurn(launch, '@shell ls /run/ars 2>&1 || echo none');
      await launch.close();
      expect(result).toMatchObject({ status: 'success' });
      expect(String(events.find((event) => event.type === 'tool_call')?.payload.output)).toMatch(/No such file or directory[\s\S]*none/);
    } finally {
      await provider.release(sandbox);
    }
  });
});
