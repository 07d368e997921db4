import { AppError } from '@ars/errors';
import { toAutomation, type Automation } from '../domain/automationView.js';
import type { AutomationRecord } from '../store/automations.js';
import type { AutomationsDeps } from './deps.js';

export function automationNotFound(): AppError {
  return AppError.notFound('Automation not found');
}

/** The user's automation; 404 when it does not exist or is someone else's (the same answer for both). */
export async function ownedAutomation(deps: AutomationsDeps, userId: string, id: string): Promise<AutomationRecord> {
  const automation = await deps.automations.findOwned(userId, id);
  if (!automation) throw automationNotFound();
  return automation;
}

/** CONTRACT.md, Automation (full): the record with its published version and its runs' summary. */
export async function automationAnswer(deps: AutomationsDeps, automation: AutomationRecord): Promise<{ automation: Automation }> {
  const [published, runSummary] = await Promise.all([
    automation.publishedVersionId ? deps.versions.find(automation.publishedVersionId) : null,
    deps.runs.summary(automation.id, new Date()),
  ]);
  return { automation: toAutomation(automation, published, runSummary) };
}
