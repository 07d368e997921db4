import { AppError } from '@ars/errors';
import { toAutomation, type Automation } from '../domain/automationView.js';
import type { AutomationChange, AutomationRecord, PublishedPointer } from '../store/automations.js';
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

/**
 * Writes `change` (and points at `published` when given) in one document write: 404 when the
 * automation is not the user's, 409 when a newer version was published meanwhile (two publishes
 * racing: the higher number stays published).
 */
export async function updateOwned(
  deps: AutomationsDeps,
  userId: string,
  id: string,
  change: AutomationChange,
  now: Date,
  published?: PublishedPointer,
): Promise<AutomationRecord> {
  const updated = await deps.automations.update(userId, id, change, now, published);
  if (updated) return updated;
  if (published && (await deps.automations.findOwned(userId, id))) {
    throw AppError.conflict('a newer version of the automation was published meanwhile; read it and try again');
  }
  throw automationNotFound();
}

/** CONTRACT.md, Automation (full): the record with its published version and its runs' summary. */
export async function automationAnswer(deps: AutomationsDeps, automation: AutomationRecord): Promise<{ automation: Automation }> {
  const [published, runSummary] = await Promise.all([
    automation.publishedVersionId ? deps.versions.find(automation.publishedVersionId) : null,
    deps.runs.summary(automation.id, new Date()),
  ]);
  return { automation: toAutomation(automation, published, runSummary) };
}
