/** Agents: the user's own and the presets every user sees (the shape, `Agent`, is @ars/contract's). */
import type { Agent } from '@ars/contract';

export const PRESET_PREFIX = 'preset:';

const preset = (slug: string, name: string, model: string, category: string, description: string): Agent => ({
  id: `${PRESET_PREFIX}${slug}`,
  name,
  slug,
  model,
  description,
  category,
  preset: true,
});

/** Preset agents, in list order. Each `model` is a model id of the built-in catalog. */
export const PRESET_AGENTS: readonly Agent[] = [
  preset(
    'code-reviewer',
    'Code reviewer',
    'claude-sonnet-4-5',
    'review',
    'Reviews a change for bugs, risky patterns and missing tests, and leaves concrete suggestions.',
  ),
  preset('bug-fixer', 'Bug fixer', 'gpt-5.1-codex', 'maintenance', 'Reproduces a reported bug, fixes it with the smallest change and adds a regression test.'),
  preset(
    'test-writer',
    'Test writer',
    'gpt-5.1-codex-mini',
    'testing',
    'Adds missing tests for the code it is pointed at, following the repository’s test style.',
  ),
  preset('docs-writer', 'Docs writer', 'claude-haiku-4-5', 'documentation', 'Updates READMEs and reference docs so they match what the code does.'),
];

export function presetAgent(id: string): Agent | undefined {
  return PRESET_AGENTS.find((agent) => agent.id === id);
}

/** A slug: lower-case letters, digits and dashes, starting with a letter or digit. */
export const SLUG_PATTERN = '^[a-z0-9][a-z0-9-]{0,62}$';
