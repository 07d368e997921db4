// GitHub's webhooks as pr-review reads them: the signature of a delivery (`X-Hub-Signature-256`) and
// what a delivery asks for. A first review when a pull request opens or gets a new head; a rerun when
// a person presses "Re-run" on our check run. Everything else is ignored, said why.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { REVIEW_CHECK_NAME } from './rerun.js';

const SIGNATURE_PREFIX = 'sha256=';

/**
 * True when `signature` is `sha256=<hex HMAC-SHA256 of the raw body with the secret>`, compared in
 * constant time. The raw bytes as received: a body parsed and serialized again would not match.
 */
export function verifyWebhookSignature(secret: string, rawBody: Buffer, signature: string | undefined): boolean {
  if (!signature?.startsWith(SIGNATURE_PREFIX)) return false;
  const given = Buffer.from(signature.slice(SIGNATURE_PREFIX.length), 'hex');
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** What a delivery asks of pr-review. */
export type WebhookRequest =
  | {
      kind: 'review';
      /** `opened`/`reopened`/`synchronize` of a pull request (a first review of that head), or `rerequested` of our check run. */
      trigger: 'opened' | 'reopened' | 'synchronize' | 'rerequested';
      installationId: number;
      repoFullName: string;
      prNumber: number;
      headSha: string;
      /** For `rerequested`: the check run's `external_id` (our attempt), when it has one. */
      externalId: string | null;
    }
  | { kind: 'ignored'; why: string };

type Json = Record<string, unknown>;
const object = (value: unknown): Json | null => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null);
const string = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null);
const positive = (value: unknown): number | null => (typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : null);

const REVIEWED_ACTIONS = new Set(['opened', 'reopened', 'synchronize']);

/** Reads a delivery (`X-GitHub-Event` and its JSON payload); never throws on a payload of another shape. */
export function readWebhook(event: string | undefined, payload: unknown): WebhookRequest {
  const body = object(payload);
  if (!body) return { kind: 'ignored', why: 'the payload is not a JSON object' };
  const installationId = positive(object(body.installation)?.id);
  const repoFullName = string(object(body.repository)?.full_name);
  const action = string(body.action);
  if (event === 'ping') return { kind: 'ignored', why: 'ping' };
  if (installationId === null || repoFullName === null) return { kind: 'ignored', why: 'no installation or repository in the payload' };
  if (event === 'pull_request') {
    if (!action || !REVIEWED_ACTIONS.has(action)) return { kind: 'ignored', why: `pull_request ${action ?? '(no action)'} is not reviewed` };
    const pullRequest = object(body.pull_request);
    const prNumber = positive(pullRequest?.number ?? body.number);
    const headSha = string(object(pullRequest?.head)?.sha);
    if (prNumber === null || headSha === null) return { kind: 'ignored', why: 'pull_request without a number or head SHA' };
    return { kind: 'review', trigger: action as 'opened' | 'reopened' | 'synchronize', installationId, repoFullName, prNumber, headSha, externalId: null };
  }
  if (event === 'check_run') {
    if (action !== 'rerequested') return { kind: 'ignored', why: `check_run ${action ?? '(no action)'} is not a rerun` };
    const checkRun = object(body.check_run);
    if (string(checkRun?.name) !== REVIEW_CHECK_NAME) return { kind: 'ignored', why: 'a check run that is not ours' };
    const headSha = string(checkRun?.head_sha);
    const pullRequests = Array.isArray(checkRun?.pull_requests) ? (checkRun.pull_requests as unknown[]) : [];
    const prNumber = positive(object(pullRequests[0])?.number);
    if (prNumber === null || headSha === null) return { kind: 'ignored', why: 'check_run without a pull request or head SHA' };
    return { kind: 'review', trigger: 'rerequested', installationId, repoFullName, prNumber, headSha, externalId: string(checkRun?.external_id) };
  }
  return { kind: 'ignored', why: `${event ?? '(no event)'} events are not used` };
}
