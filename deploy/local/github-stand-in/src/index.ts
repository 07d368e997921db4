// @ars/github-stand-in: a stateful stand-in GitHub REST API for tests (never imported by production code).
export { startGitHubStandIn } from './standIn.js';
export type { GitHubStandIn, GitHubStandInOptions } from './standIn.js';
// The records the stand-in keeps (StandInRepository, StandInPullRequest, StandInCheckRun, …): all public.
export type * from './records.js';
export type { StandInFault } from './faults.js';
export type { StandInWebhook } from './webhookPayloads.js';
export { checkAppJwt, type AppJwtCheck } from './appJwt.js';
export type { StandInOAuthApp, StandInUser } from './userAuth.js';
export type { StandInAccount, StandInAppSettings, StandInInstallation } from './appInstallations.js';
export { sendWebhook, signWebhookBody, type WebhookDelivery, type WebhookTarget } from './webhooks.js';
