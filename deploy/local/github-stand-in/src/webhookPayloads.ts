// The webhooks a test delivers (`deliverWebhook`): GitHub's `pull_request` and `check_run` payloads,
// built from the stand-in's state, signed and sent (webhooks.ts).
import { checkRunJson, installationJson, pullJson, repositoryJson, user } from './json.js';
import type { StandInState } from './state.js';
import { sendWebhook, type WebhookDelivery, type WebhookTarget } from './webhooks.js';

export type StandInWebhook =
  | { event: 'pull_request'; action: 'opened' | 'synchronize'; fullName: string; number: number; before?: string }
  | { event: 'check_run'; action: 'rerequested'; fullName: string; checkRunId: number };

/** Sends a signed webhook with GitHub's payload for the event, built from the stand-in's state. */
export async function deliverWebhook(state: StandInState, target: WebhookTarget, webhook: StandInWebhook): Promise<WebhookDelivery> {
  const { baseUrl, botLogin } = state;
  const hosted = state.hostedRepository(webhook.fullName);
  const common = {
    repository: repositoryJson(baseUrl, hosted),
    installation: installationJson(hosted),
    sender: user(webhook.event === 'check_run' ? 'octocat' : (state.pullOf(webhook.fullName, webhook.number).pr.user ?? 'octocat')),
  };
  if (webhook.event === 'pull_request') {
    const { pr } = state.pullOf(webhook.fullName, webhook.number);
    const sync = webhook.action === 'synchronize' ? { before: webhook.before ?? '0'.repeat(40), after: pr.head.sha } : {};
    return sendWebhook(target, 'pull_request', { action: webhook.action, number: pr.number, pull_request: pullJson(baseUrl, hosted, pr), ...sync, ...common });
  }
  const run = hosted.checkRuns.find((r) => r.id === webhook.checkRunId);
  if (!run) throw new Error(`the stand-in has no check run ${webhook.checkRunId}`);
  const runJson = checkRunJson(baseUrl, hosted, run, botLogin);
  const headBranch = hosted.pulls.find((p) => p.head.sha === run.head_sha)?.head.ref ?? null;
  return sendWebhook(target, 'check_run', {
    action: webhook.action,
    check_run: { ...runJson, check_suite: { ...runJson.check_suite, head_sha: run.head_sha, head_branch: headBranch, status: 'queued', conclusion: null } },
    ...common,
  });
}
