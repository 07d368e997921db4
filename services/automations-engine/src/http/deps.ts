import type { CatalogClient } from '@ars/catalog/client';
import type { Logger } from '@ars/logger';
import type { AutomationRunStore } from '../store/automationRuns.js';
import type { AutomationStore } from '../store/automations.js';
import type { AutomationVersionStore } from '../store/automationVersions.js';

/** What the routes work with. */
export interface AutomationsDeps {
  automations: AutomationStore;
  versions: AutomationVersionStore;
  runs: AutomationRunStore;
  /** Installations, and the agents and models publish checks against. */
  catalog: Pick<CatalogClient, 'installation' | 'listAgents' | 'listModels'>;
  logger: Logger;
}
