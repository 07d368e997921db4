import { createHmac } from 'node:crypto';
import { REVIEW_CHECK_NAME } from './rerun.js';
import { readWebhook, verifyWebhookSignature } from './webhooks.js';

const SECRET = 'webhook-secret-for-tests';
const sign = (body: Buffer, secret = SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

describe('X-Hub-Signature-256 is the HMAC-SHA256 of the raw body with the webhook secret', () => {
  const body = Buffer.from('{"action":"opened","number":1}');

  test('the right signature is accepted', () => {
    expect(verifyWebhookSignature(SECRET, body, sign(body))).toBe(true);
  });

  test.each([
    ['no header', undefined],
    ['another secret', sign(body, 'another-secret')],
    ['the body changed by one byte', sign(Buffer.from('{"action":"opened","number":2}'))],
    ['sha1 instead of sha256', `sha1=${createHmac('sha1', SECRET).update(body).digest('hex')}`],
    ['a cut signature', sign(body).slice(0, 40)],
    ['not hex', 'sha256=zz'],
  ])('refused: %s', (_what, header) => {
    expect(verifyWebhookSignature(SECRET, body, header)).toBe(false);
  });
});

const base = { installation: { id: 42 }, repository: { full_name: 'acme/app' } };

describe('pull_request opened, reopened or synchronize asks for a review of its head', () => {
  test.each(['opened', 'reopened', 'synchronize'])('%s', (action) => {
    const payload = { ...base, action, number: 7, pull_request: { number: 7, head: { sha: 'abc123', ref: 'feature' } } };
    expect(readWebhook('pull_request', payload)).toEqual({
      kind: 'review',
      trigger: action,
      installationId: 42,
      repoFullName: 'acme/app',
      prNumber: 7,
      headSha: 'abc123',
      externalId: null,
    });
  });

  test('closed, edited and labeled are ignored, saying so', () => {
    for (const action of ['closed', 'edited', 'labeled']) {
      expect(readWebhook('pull_request', { ...base, action, number: 7, pull_request: { number: 7, head: { sha: 'abc' } } })).toEqual({
        kind: 'ignored',
        why: `pull_request ${action} is not reviewed`,
      });
    }
  });
});

describe('check_run rerequested of our check run asks for a rerun, with its external_id', () => {
  const checkRun = (overrides: Record<string, unknown> = {}) => ({
    ...base,
    action: 'rerequested',
    check_run: { id: 9, name: REVIEW_CHECK_NAME, head_sha: 'def456', external_id: 'attempt-1', pull_requests: [{ number: 7 }], ...overrides },
  });

  test('ours: a review request naming the attempt', () => {
    expect(readWebhook('check_run', checkRun())).toEqual({
      kind: 'review',
      trigger: 'rerequested',
      installationId: 42,
      repoFullName: 'acme/app',
      prNumber: 7,
      headSha: 'def456',
      externalId: 'attempt-1',
    });
  });

  test('another app’s check run, or one without a pull request, is ignored', () => {
    expect(readWebhook('check_run', checkRun({ name: 'ci' }))).toEqual({ kind: 'ignored', why: 'a check run that is not ours' });
    expect(readWebhook('check_run', checkRun({ pull_requests: [] }))).toEqual({ kind: 'ignored', why: 'check_run without a pull request or head SHA' });
  });

  test('check_run completed is not a rerun', () => {
    expect(readWebhook('check_run', { ...checkRun(), action: 'completed' })).toEqual({ kind: 'ignored', why: 'check_run completed is not a rerun' });
  });
});

describe('anything else is ignored, never thrown on', () => {
  test.each([
    ['ping', { zen: 'Keep it logically awesome.' }, 'ping'],
    ['push', { ...base, ref: 'refs/heads/main' }, 'push events are not used'],
    ['pull_request', null, 'the payload is not a JSON object'],
    ['pull_request', [1, 2], 'the payload is not a JSON object'],
    ['pull_request', { action: 'opened', number: 7 }, 'no installation or repository in the payload'],
    ['pull_request', { ...base, action: 'opened', pull_request: { head: {} } }, 'pull_request without a number or head SHA'],
  ])('%s %j', (event, payload, why) => {
    expect(readWebhook(event, payload)).toEqual({ kind: 'ignored', why });
  });
});
