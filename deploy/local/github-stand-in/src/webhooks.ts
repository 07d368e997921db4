import { createHmac, randomUUID } from 'node:crypto';

/** Where the stand-in delivers webhooks and the secret it signs them with. */
export interface WebhookTarget {
  url: string;
  secret: string;
}

export interface WebhookDelivery {
  /** `X-GitHub-Delivery`. */
  deliveryId: string;
  event: string;
  /** The raw body sent (what the signature covers). */
  body: string;
  signature: string;
  /** The receiver's HTTP status. */
  status: number;
}

/** `X-Hub-Signature-256`: `sha256=` and the hex HMAC-SHA256 of the raw body under the webhook secret. */
export function signWebhookBody(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * POSTs one event as GitHub does: JSON body, `X-GitHub-Event`, `X-GitHub-Delivery`, `X-Hub-Signature-256`.
 * `again` is GitHub's "Redeliver": the same delivery id and the very same body.
 */
export async function sendWebhook(
  target: WebhookTarget,
  event: string,
  payload: unknown,
  again?: { deliveryId: string; body: string },
): Promise<WebhookDelivery> {
  const body = again?.body ?? JSON.stringify(payload);
  const deliveryId = again?.deliveryId ?? randomUUID();
  const signature = signWebhookBody(target.secret, body);
  const response = await fetch(target.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/stand-in',
      'x-github-event': event,
      'x-github-delivery': deliveryId,
      'x-hub-signature-256': signature,
    },
    body,
  });
  await response.arrayBuffer();
  return { deliveryId, event, body, signature, status: response.status };
}
