// Which harness the stack's model stand-in answers for: every real CLI with no provider given.
import { modelStandInFor, STAND_IN_KEY, startStackModels } from './modelProvider.js';

describe('the model stand-in answers a real CLI unless its provider is given (a key or a base URL)', () => {
  test('nothing given: both harnesses', () => {
    expect(modelStandInFor({})).toEqual({ codex: true, claudeCode: true });
  });
  test('HARNESS_CLIS=stand-in: neither (the stand-in CLIs call no model)', () => {
    expect(modelStandInFor({ HARNESS_CLIS: 'stand-in' })).toEqual({ codex: false, claudeCode: false });
  });
  test('CODEX_API_KEY or OPENAI_BASE_URL: codex calls its provider; ANTHROPIC_API_KEY or ANTHROPIC_BASE_URL: Claude Code does', () => {
    expect(modelStandInFor({ CODEX_API_KEY: 'sk-1' })).toEqual({ codex: false, claudeCode: true });
    expect(modelStandInFor({ OPENAI_BASE_URL: 'https://gw.example/v1' })).toEqual({ codex: false, claudeCode: true });
    expect(modelStandInFor({ ANTHROPIC_API_KEY: 'sk-ant-1' })).toEqual({ codex: true, claudeCode: false });
    expect(modelStandInFor({ ANTHROPIC_BASE_URL: 'https://gw.example' })).toEqual({ codex: true, claudeCode: false });
  });
});

describe('the services are pointed at it only where it answers', () => {
  test('one provider given: the stand-in runs, and only the other harness’s base URL names it', async () => {
    const lines: string[] = [];
    const models = await startStackModels({ CODEX_API_KEY: 'sk-1' }, (line) => lines.push(line));
    try {
      expect(models.standIn).not.toBeNull();
      expect(models.env).toEqual({ ANTHROPIC_BASE_URL: models.standIn?.url, ANTHROPIC_API_KEY: STAND_IN_KEY, HARNESS_STAND_IN_TOOLS: 'on' });
      expect(lines).toEqual([`[stack] model stand-in at ${models.standIn?.url} answers claude-code (no provider key or base URL given)`]);
      expect((await fetch(`${models.standIn?.url}/healthz`)).status).toBe(200);
    } finally {
      await models.stop();
    }
  });
  test('both given: no stand-in, no variable', async () => {
    const models = await startStackModels({ OPENAI_BASE_URL: 'https://a/v1', ANTHROPIC_BASE_URL: 'https://b' }, () => undefined);
    expect([models.standIn, models.env]).toEqual([null, {}]);
  });
});
