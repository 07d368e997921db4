/**
 * The built-in model catalog, the plans and their managed access. Catalog order is the order of the
 * model list. Prices are US dollars per million tokens. `visible` is the default catalog visibility
 * (an operator can override it per model through `PUT /internal/models/:modelId/visibility`).
 */
import type { Model } from '@ars/contract';
import type { CatalogModel } from './modelAvailability.js';

export const PROVIDERS = ['openai', 'anthropic'] as const;
export type Provider = (typeof PROVIDERS)[number];

export const PLANS = ['free', 'pro'] as const;
export type Plan = (typeof PLANS)[number];

/** Every new user starts here until a plan is set. */
export const DEFAULT_PLAN: Plan = 'free';

export const MODEL_CATALOG: readonly CatalogModel[] = [
  {
    id: 'gpt-5.1-codex',
    provider: 'openai',
    name: 'GPT-5.1 Codex',
    contextLength: 400_000,
    capabilities: ['code', 'tools', 'reasoning'],
    pricing: { input: 1.25, output: 10 },
    visible: true,
    managedPlans: ['pro'],
  },
  {
    id: 'gpt-5.1-codex-mini',
    provider: 'openai',
    name: 'GPT-5.1 Codex Mini',
    contextLength: 400_000,
    capabilities: ['code', 'tools', 'reasoning'],
    pricing: { input: 0.25, output: 2 },
    visible: true,
    managedPlans: ['free', 'pro'],
  },
  {
    id: 'gpt-5.1',
    provider: 'openai',
    name: 'GPT-5.1',
    contextLength: 400_000,
    capabilities: ['code', 'tools', 'reasoning', 'vision'],
    pricing: { input: 1.25, output: 10 },
    visible: true,
    managedPlans: [],
  },
  {
    id: 'claude-sonnet-4-5',
    provider: 'anthropic',
    name: 'Claude Sonnet 4.5',
    contextLength: 200_000,
    capabilities: ['code', 'tools', 'reasoning', 'vision'],
    pricing: { input: 3, output: 15 },
    visible: true,
    managedPlans: ['pro'],
  },
  {
    id: 'claude-haiku-4-5',
    provider: 'anthropic',
    name: 'Claude Haiku 4.5',
    contextLength: 200_000,
    capabilities: ['code', 'tools', 'vision'],
    pricing: { input: 1, output: 5 },
    visible: true,
    managedPlans: ['free', 'pro'],
  },
  {
    id: 'claude-opus-4-1',
    provider: 'anthropic',
    name: 'Claude Opus 4.1',
    contextLength: 200_000,
    capabilities: ['code', 'tools', 'reasoning', 'vision'],
    pricing: { input: 15, output: 75 },
    visible: true,
    managedPlans: [],
  },
];

export function catalogModel(id: string): CatalogModel | undefined {
  return MODEL_CATALOG.find((model) => model.id === id);
}

export function isProvider(value: string): value is Provider {
  return (PROVIDERS as readonly string[]).includes(value);
}

export function toContractModel(model: CatalogModel): Model {
  return {
    id: model.id,
    provider: model.provider,
    name: model.name,
    contextLength: model.contextLength,
    capabilities: [...model.capabilities],
    pricing: { input: model.pricing.input, output: model.pricing.output },
  };
}
