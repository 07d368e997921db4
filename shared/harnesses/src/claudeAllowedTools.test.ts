// Rule: ALLOWED_TOOLS names only tools the bundled Claude Code has. Checked against the real CLI:
// its `system`/`init` message lists the session's tools, and comes before any model request, so a
// closed port is all the provider it needs.
import { query } from '@anthropic-ai/claude-agent-sdk';
import { ALLOWED_TOOLS, claudeCodeEnv } from './claudeCode.js';
import { closedPort } from './realCliTesting.js';
import { makeWorkTree, scrubbedEnv, type WorkTree } from './testing.js';

/** system/init names the Agent tool by its former name. */
const INIT_NAMES: Record<string, string> = { Agent: 'Task' };

let tree: WorkTree;
beforeEach(async () => {
  tree = await makeWorkTree();
});
afterEach(async () => {
  await tree.cleanup();
});

test('every tool in ALLOWED_TOOLS is a tool of the bundled Claude Code session started with it', async () => {
  const env = claudeCodeEnv({ env: { ...scrubbedEnv(tree.dir), CLAUDE_CODE_MAX_RETRIES: '0' }, modelBaseUrl: `http://127.0.0.1:${await closedPort()}` });
  const abortController = new AbortController();
  let tools: string[] | null = null;
  try {
    for await (const message of query({
      prompt: 'Say hello.',
      options: { cwd: tree.dir, env, abortController, permissionMode: 'acceptEdits', allowedTools: [...ALLOWED_TOOLS], settingSources: [] },
    })) {
      if (message.type === 'system' && message.subtype === 'init') {
        tools = message.tools;
        break;
      }
    }
  } finally {
    abortController.abort();
  }
  expect(tools).not.toBeNull();
  const missing = ALLOWED_TOOLS.filter((name) => !(tools ?? []).includes(INIT_NAMES[name] ?? name));
  expect(missing).toEqual([]);
}, 60_000);
