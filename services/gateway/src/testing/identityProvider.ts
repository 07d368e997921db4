// A real OpenID provider for the sign-in tests: the maintained `oidc-provider` (not one written
// here), on the loopback over HTTP, with its own login and consent pages (devInteractions: any
// account id signs in, with any password). Accounts are the test's; `tamperIdTokens` rewrites the
// ID token of the token endpoint's next answers, re-signed with the provider's own key (an ID token
// for another audience, an expired one), which the provider itself never issues.
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, decodeProtectedHeader, SignJWT, type JWTPayload } from 'jose';

export interface IdentityAccount {
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export interface IdentityProviderOptions {
  /** The port to listen on (the gateway may be configured with the issuer before the provider starts). */
  port: number;
  client: { id: string; secret: string; redirectUri: string; postLogoutRedirectUri: string };
  /** Account id → its claims (an id not listed signs in with no email). */
  accounts: Record<string, IdentityAccount>;
}

export interface IdentityProvider {
  issuer: string;
  /**
   * Every later ID token of the token endpoint rewritten by `change` (null: untouched again), signed
   * with the provider's own key, or with `signedBy: 'another key'` a key the provider never published.
   */
  tamperIdTokens(change: ((payload: JWTPayload) => JWTPayload) | null, options?: { signedBy: 'the provider' | 'another key' }): void;
  stop(): Promise<void>;
}

export async function startIdentityProvider(options: IdentityProviderOptions): Promise<IdentityProvider> {
  // oidc-provider warns on loading and construction (the runtime, the in-memory adapter, the development interactions): not this test's concern.
  const consoleWarn = console.warn;
  console.warn = () => undefined;
  try {
    return await listening(options, (await import('oidc-provider')).default);
  } finally {
    console.warn = consoleWarn;
  }
}

async function listening(options: IdentityProviderOptions, Provider: typeof import('oidc-provider').default): Promise<IdentityProvider> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), alg: 'RS256', use: 'sig' };
  const issuer = `http://127.0.0.1:${options.port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: options.client.id,
        client_secret: options.client.secret,
        redirect_uris: [options.client.redirectUri],
        post_logout_redirect_uris: [options.client.postLogoutRedirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [signingKey as never] },
    // Names of their own: the gateway's authorization server on the same host keeps oidc-provider's defaults.
    cookies: { keys: [randomUUID()], names: { session: 'idp_session', interaction: 'idp_interaction', resume: 'idp_resume' } },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    ttl: { AuthorizationCode: 60, IdToken: 3600, Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600 },
    findAccount: (_ctx: unknown, id: string) => ({ accountId: id, claims: () => ({ sub: id, ...(options.accounts[id] ?? {}) }) }),
    features: {
      devInteractions: { enabled: true },
      // The provider's own sign-out confirmation (its default page, without the notice that it is the default).
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: (ctx, form) => {
          ctx.body = `<!doctype html><html><body><h1>Sign out?</h1>${form}<button type="submit" form="op.logoutForm" value="yes" name="logout">Yes, sign me out</button></body></html>`;
        },
      },
    },
  });
  let tamper: ((payload: JWTPayload) => JWTPayload) | null = null;
  let tamperKey = signingKey;
  const foreign = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  // The same key id as the provider's: only the signature tells the forgery apart.
  const foreignKey = { ...foreign.export({ format: 'jwk' }), kid: signingKey.kid, alg: 'RS256', use: 'sig' };
  // Before callback(): Koa composes its middleware there.
  provider.use(async (ctx, next) => {
    await next();
    const body = ctx.body as { id_token?: unknown } | undefined;
    if (!tamper || ctx.path !== '/token' || typeof body?.id_token !== 'string') return;
    const header = decodeProtectedHeader(body.id_token);
    const payload = tamper(decodeJwt(body.id_token));
    ctx.body = { ...body, id_token: await new SignJWT(payload).setProtectedHeader({ alg: header.alg ?? 'RS256', kid: header.kid }).sign(tamperKey) };
  });
  const server: Server = createServer(provider.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  return {
    issuer: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tamperIdTokens(change, options) {
      tamper = change;
      tamperKey = options?.signedBy === 'another key' ? foreignKey : signingKey;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
