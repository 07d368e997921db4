/**
 * Which models a user may use (CONTRACT.md, GET /models): "the model list already reflects catalog
 * visibility, the user's enabled-state policy, provider keys and plan-backed managed access".
 * Every rule is here, with no I/O, so each one can be flipped in a test.
 */
export interface CatalogModel {
  id: string;
  provider: string;
  name: string;
  contextLength: number | null;
  capabilities: string[];
  pricing: { input: number | null; output: number | null };
  /** Catalog visibility: a hidden model is offered to nobody. */
  visible: boolean;
  /** Plans whose managed access covers this model without a key of the user's own. */
  managedPlans: string[];
}

export interface UserModelContext {
  plan: string;
  /** Providers the user has stored a key for. */
  providerKeys: ReadonlySet<string>;
  /** The user's enabled-state policy: an explicit `false` disables a model; absent means enabled. */
  enabledByModelId: ReadonlyMap<string, boolean>;
}

export type Unavailability = 'hidden' | 'disabled_by_user' | 'not_reachable';

/** Why a model is not available to the user, or null when it is. */
export function unavailabilityOf(model: CatalogModel, user: UserModelContext): Unavailability | null {
  if (!model.visible) return 'hidden';
  if (user.enabledByModelId.get(model.id) === false) return 'disabled_by_user';
  const reachable = user.providerKeys.has(model.provider) || model.managedPlans.includes(user.plan);
  return reachable ? null : 'not_reachable';
}

export function availableModels(models: readonly CatalogModel[], user: UserModelContext): CatalogModel[] {
  return models.filter((model) => unavailabilityOf(model, user) === null);
}
