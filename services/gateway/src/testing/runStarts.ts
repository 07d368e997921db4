// A run start through the public API (POST /runs), as the rate-limit and start-run tests send it.
import { bearer, call, type Account, type Answer } from './accounts.js';

/** `api` is a gateway's `/api/v1/svc`; without `body`, the account's first repository and a short prompt. */
export function startRunAt(
  api: string,
  token: string,
  account: Account,
  key: string,
  body?: Record<string, unknown>,
): Promise<Answer<{ runId: string; replayed: boolean }>> {
  return call(`${api}/runs`, {
    method: 'POST',
    headers: { ...bearer(token), 'idempotency-key': key },
    json: body ?? { repoId: account.repos[0]?.id, prompt: 'do it' },
  });
}
