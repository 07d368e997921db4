import { verify, type KeyObject } from 'node:crypto';

export interface AppJwtCheck {
  iss: unknown;
  valid: boolean;
  reason?: string;
}

const b64json = (part: string): unknown => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));

/** GitHub's rules for an App JWT: RS256, signed by the App's key, `iss` the App id, `exp` at most 10 minutes ahead, not expired. */
export function checkAppJwt(jwt: string, appId: string, publicKey: KeyObject, nowSeconds = Math.floor(Date.now() / 1000)): AppJwtCheck {
  const parts = jwt.split('.');
  if (parts.length !== 3) return { iss: undefined, valid: false, reason: 'not three parts' };
  const [head = '', body = '', signature = ''] = parts;
  let header: { alg?: unknown; typ?: unknown };
  let payload: { iss?: unknown; iat?: unknown; exp?: unknown };
  try {
    header = b64json(head) as typeof header;
    payload = b64json(body) as typeof payload;
  } catch {
    return { iss: undefined, valid: false, reason: 'undecodable' };
  }
  const fail = (reason: string) => ({ iss: payload.iss, valid: false, reason });
  if (header.alg !== 'RS256') return fail(`alg ${String(header.alg)}`);
  if (!verify('RSA-SHA256', Buffer.from(`${head}.${body}`), publicKey, Buffer.from(signature, 'base64url'))) return fail('bad signature');
  if (String(payload.iss) !== appId) return fail(`iss ${String(payload.iss)}`);
  if (typeof payload.iat !== 'number' || typeof payload.exp !== 'number') return fail('iat/exp missing');
  if (payload.exp <= nowSeconds) return fail('expired');
  if (payload.exp > nowSeconds + 600 + 5) return fail('exp more than 10 minutes ahead');
  if (payload.iat > nowSeconds + 60) return fail('iat in the future');
  return { iss: payload.iss, valid: true };
}
