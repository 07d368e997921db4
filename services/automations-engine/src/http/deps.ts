import type { CatalogClient } from '@ars/catalog/client';
import type { Logger } from '@ars/logger';
import type { RunsClient } from '@ars/runs/client';
import type { ProgramCache } from '../engine/programs.js';
import type { RunDriver } from '../engine/runDriver.js';
import type { AutomationEventStore } from '../store/automationEvents.js';
import type { AutomationRunStore } from '../store/automationRuns.js';
import type { AutomationStore } from '../store/automations.js';
import type { AutomationVersionStore } from '../store/automationVersions.js';

/** What the routes work with. */
export interface AutomationsDeps {
  automations: AutomationStore;
  versions: AutomationVersionStore;
  runs: AutomationRunStore;
  events: AutomationEventStore;
  /** Published versions prepared once (run views name node types by them). */
  programs: ProgramCache;
  /** Applies happenings to runs (trigger, cancel, events). */
  driver: RunDriver;
  /** Installations, repositories, and the agents and models publish checks and triggers read. */
  catalog: Pick<CatalogClient, 'installation' | 'repo' | 'listAgents' | 'listModels'>;
  /** Agent runs (the sweeper and the consumer read them through the driver). */
  runsApi: Pick<RunsClient, 'startRun' | 'replayRun' | 'cancelRun' | 'getRun'>;
  logger: Logger;
}
