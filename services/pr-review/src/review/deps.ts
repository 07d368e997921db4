import type { AutomationsClient } from '@ars/automations-engine/client';
import type { CatalogClient } from '@ars/catalog/client';
import type { Logger } from '@ars/logger';
import type { LocalSourceHost } from '@ars/source-host';
import type { KnownSecrets } from '@ars/sanitize';
import type { AttemptStore } from '../store/attempts.js';
import type { DeliveryStore } from '../store/deliveries.js';
import type { ReviewAutomationStore } from '../store/reviewAutomations.js';
import type { SourceHosts } from './sourceHosts.js';

/** What pr-review's routes, consumer and report loop work with (built once by `prReview.ts`). */
export interface PrReviewDeps {
  attempts: AttemptStore;
  reviewAutomations: ReviewAutomationStore;
  deliveries: DeliveryStore;
  /** GITHUB_WEBHOOK_SECRET, or null when GitHub deliveries are not configured. */
  webhookSecret: string | null;
  catalog: Pick<CatalogClient, 'repoAccess' | 'repo' | 'listAgents' | 'githubRepo' | 'applyGitHubDelivery'>;
  automations: AutomationsClient;
  hosts: SourceHosts;
  /** The local source host (development): the one `hosts` answers for local repositories. */
  localHost: LocalSourceHost;
  /** `ARS_ENV=production`: the development routes answer 404. */
  production: boolean;
  /** The login our comments are written under (only their markers count). */
  appLogin: string;
  logger: Logger;
  secrets: KnownSecrets;
  /** Asks the report loop for a pass now (an automation run just ended). */
  kickReports: () => void;
}
