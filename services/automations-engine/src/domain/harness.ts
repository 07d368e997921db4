import type { AgentData, Harness } from './nodeData.js';

/** The part of a model (`GET /models`) that chooses a harness. */
export interface ModelProvider {
  provider: string;
}

/**
 * The harness an agent node runs with: its own `harness` when set, else by its model's provider:
 * Anthropic models run under Claude Code, every other provider (and an unknown model) under Codex.
 */
export function agentHarness(data: Pick<AgentData, 'harness'>, model: ModelProvider | undefined): Harness {
  if (data.harness) return data.harness;
  return model?.provider.toLowerCase() === 'anthropic' ? 'claude-code' : 'codex';
}
