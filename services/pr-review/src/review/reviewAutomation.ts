// An installation's review automation: created from the built-in template on first use (one per user
// and installation, even when attempts race), then the user's like any other.
import { AppError, isAppError } from '@ars/errors';
import { reviewAutomationGraph, REVIEW_AUTOMATION_DESCRIPTION, REVIEW_AUTOMATION_NAME } from '../domain/reviewTemplate.js';
import type { PrReviewDeps } from './deps.js';

/** The preset agent a review automation starts with (the user may change it like any node). */
export const REVIEW_AGENT_ID = 'preset:code-reviewer';
/** A claim older than this was left by an instance that died before linking the automation. */
const STALE_CLAIM_MS = 30_000;
const WAIT_STEP_MS = 250;
const WAIT_STEPS = 80;

/** The automation id of the installation's review automation, created (published) when there is none. */
export async function reviewAutomationFor(deps: PrReviewDeps, userId: string, installationId: number): Promise<string> {
  for (let step = 0; step < WAIT_STEPS; step += 1) {
    const link = await deps.reviewAutomations.find(userId, installationId);
    if (link?.automationId) {
      if (await stillThere(deps, userId, link.automationId)) return link.automationId;
      await deps.reviewAutomations.unlink(userId, installationId, link.automationId);
      continue;
    }
    const now = new Date();
    if (await deps.reviewAutomations.claim(userId, installationId, now, new Date(now.getTime() - STALE_CLAIM_MS))) {
      const automation = await deps.automations.createAutomation(userId, {
        installationId,
        name: REVIEW_AUTOMATION_NAME,
        description: REVIEW_AUTOMATION_DESCRIPTION,
        graph: reviewAutomationGraph(await reviewAgent(deps, userId)),
        publish: true,
      });
      await deps.reviewAutomations.link(userId, installationId, automation.id);
      deps.logger.info({ user_id: userId, installation_id: installationId, automation_id: automation.id }, 'review automation created');
      return automation.id;
    }
    await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS));
  }
  throw AppError.unavailable('the review automation is being created; try again', 5);
}

async function stillThere(deps: PrReviewDeps, userId: string, automationId: string): Promise<boolean> {
  try {
    await deps.automations.getAutomation(userId, automationId);
    return true;
  } catch (error) {
    if (isAppError(error) && error.code === 'NOT_FOUND') return false;
    throw error;
  }
}

/** The code-reviewer preset when the user has it, else the first agent they have. */
async function reviewAgent(deps: PrReviewDeps, userId: string): Promise<string> {
  const agents = await deps.catalog.listAgents(userId);
  const agent = agents.find((candidate) => candidate.id === REVIEW_AGENT_ID) ?? agents[0];
  if (!agent) throw AppError.conflict('No agent is available to review with');
  return agent.id;
}
