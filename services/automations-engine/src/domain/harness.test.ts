import { agentHarness } from './harness.js';

describe("an agent node's harness is its own harness, else chosen by the model's provider", () => {
  it("the node's harness wins over the provider", () => {
    expect(agentHarness({ harness: 'codex' }, { provider: 'anthropic' })).toBe('codex');
    expect(agentHarness({ harness: 'claude-code' }, { provider: 'openai' })).toBe('claude-code');
  });

  it('Anthropic → claude-code', () => {
    expect(agentHarness({}, { provider: 'anthropic' })).toBe('claude-code');
    expect(agentHarness({}, { provider: 'Anthropic' })).toBe('claude-code');
  });

  it('any other provider, or no known model → codex', () => {
    expect(agentHarness({}, { provider: 'openai' })).toBe('codex');
    expect(agentHarness({}, { provider: 'google' })).toBe('codex');
    expect(agentHarness({}, undefined)).toBe('codex');
  });
});
