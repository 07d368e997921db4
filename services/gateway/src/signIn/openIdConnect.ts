// Sign-in through OpenID Connect, with the maintained `openid-client` (no hand-written OIDC): the
// issuer's metadata discovered once (again after a failure), the authorization URL with PKCE S256,
// state and nonce, and the callback checked as the library checks it (state, the provider's error,
// the code at the token endpoint, the ID token's issuer, audience, expiry, nonce and signature).
import * as oidc from 'openid-client';
import type { OidcSettings } from '../config.js';
import { displayClaim, emailRefusal, type IdentityClaims } from '../domain/signIn.js';
import { ProviderUnavailable, SignInRefused, type SignInMethod } from './signInMethod.js';

const DISCOVERY_TIMEOUT_SECONDS = 10;

/**
 * The client authentication the provider's metadata asks for: `client_secret_basic` (OpenID Connect's
 * default, also when the metadata names none) unless the provider offers only `client_secret_post`.
 */
function clientAuthentication(metadata: oidc.ServerMetadata, secret: string): oidc.ClientAuth {
  const offered = metadata.token_endpoint_auth_methods_supported;
  if (offered && !offered.includes('client_secret_basic') && offered.includes('client_secret_post')) return oidc.ClientSecretPost(secret);
  return oidc.ClientSecretBasic(secret);
}

async function discover(settings: OidcSettings): Promise<oidc.Configuration> {
  const insecure = new URL(settings.issuer).protocol === 'http:';
  const execute = insecure ? [oidc.allowInsecureRequests] : [];
  let discovered: oidc.Configuration;
  try {
    discovered = await oidc.discovery(new URL(settings.issuer), settings.clientId, undefined, undefined, { execute, timeout: DISCOVERY_TIMEOUT_SECONDS });
  } catch (error) {
    throw new ProviderUnavailable(`the identity provider ${settings.issuer} could not be discovered: ${messageOf(error)}`);
  }
  const metadata = discovered.serverMetadata();
  const config = new oidc.Configuration(metadata, settings.clientId, undefined, clientAuthentication(metadata, settings.clientSecret));
  if (insecure) oidc.allowInsecureRequests(config);
  // Over plain HTTP (development) nothing but the signature proves the token is the provider's; checked everywhere.
  oidc.enableNonRepudiationChecks(config);
  return config;
}

function messageOf(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'message' in error) {
    const cause =
      'cause' in error && typeof error.cause === 'object' && error.cause !== null && 'message' in error.cause ? ` (${String(error.cause.message)})` : '';
    return `${String(error.message)}${cause}`;
  }
  return String(error);
}

type Fields = { code?: unknown; error?: unknown; error_description?: unknown; cause?: unknown; message?: unknown };

/** The claim an ID token check failed on (openid-client's ClientError → its cause → `{claim}`). */
function failedClaim(error: Fields): string | undefined {
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 3 && typeof cause === 'object' && cause !== null; depth += 1) {
    const record = cause as { claim?: unknown; cause?: unknown };
    if (typeof record.claim === 'string') return record.claim;
    cause = record.cause;
  }
  return undefined;
}

/** openid-client's errors as what the user is told (checked by code, not class: error classes do not survive every module loader). */
export function refusalOf(error: unknown): SignInRefused | ProviderUnavailable {
  const fields = (typeof error === 'object' && error !== null ? error : {}) as Fields;
  const detail = messageOf(error);
  switch (fields.code) {
    case 'OAUTH_AUTHORIZATION_RESPONSE_ERROR': {
      const said = typeof fields.error_description === 'string' ? `: ${fields.error_description}` : '';
      if (fields.error === 'access_denied') return new SignInRefused(403, `The identity provider did not let you sign in (access_denied${said}).`, detail);
      return new SignInRefused(400, `The identity provider refused the sign-in (${String(fields.error)}${said}).`, detail);
    }
    case 'OAUTH_RESPONSE_BODY_ERROR':
      if (fields.error === 'invalid_grant')
        return new SignInRefused(
          400,
          'The identity provider refused the sign-in code (invalid_grant): it was used already, has expired, or is not this sign-in’s.',
          detail,
        );
      return new SignInRefused(400, `The identity provider refused to complete the sign-in (${String(fields.error)}).`, detail);
    case 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED':
      return new SignInRefused(400, `The identity provider’s ID token is expired or not yet valid (${failedClaim(fields) ?? 'exp'}).`, detail);
    case 'OAUTH_JWT_CLAIM_COMPARISON_FAILED': {
      const claim = failedClaim(fields) ?? 'a claim';
      return new SignInRefused(400, `The identity provider’s ID token is not for this sign-in: its ${claim} does not match.`, detail);
    }
    case 'OAUTH_INVALID_RESPONSE':
    case 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED':
    case 'OAUTH_RESPONSE_IS_NOT_CONFORM':
    case 'OAUTH_MISSING_SERVER_METADATA':
      if (/"state"/.test(detail))
        return new SignInRefused(400, 'This answer does not belong to the sign-in this browser started (its state does not match).', detail);
      return new SignInRefused(400, 'The identity provider’s answer did not pass the checks of a sign-in.', detail);
    default:
      return new ProviderUnavailable(`the identity provider could not complete the sign-in: ${detail}`);
  }
}

export function openIdConnect(settings: OidcSettings, redirectUri: string): SignInMethod {
  let configuration: Promise<oidc.Configuration> | undefined;
  const config = (): Promise<oidc.Configuration> => {
    configuration ??= discover(settings).catch((error: unknown) => {
      configuration = undefined;
      throw error;
    });
    return configuration;
  };
  return {
    method: 'oidc',
    label: 'your company account',
    async begin(returnTo) {
      const current = await config();
      const codeVerifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      const url = oidc.buildAuthorizationUrl(current, {
        redirect_uri: redirectUri,
        scope: 'openid email profile',
        code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      return { url, attempt: { method: 'oidc', state, nonce, codeVerifier, returnTo } };
    },
    async finish(callbackUrl, attempt) {
      if (attempt.method !== 'oidc')
        throw new SignInRefused(400, 'This answer does not belong to the sign-in this browser started.', `a ${attempt.method} attempt`);
      const current = await config();
      let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
      try {
        tokens = await oidc.authorizationCodeGrant(current, callbackUrl, {
          pkceCodeVerifier: attempt.codeVerifier,
          expectedState: attempt.state,
          expectedNonce: attempt.nonce,
          idTokenExpected: true,
        });
      } catch (error) {
        throw refusalOf(error);
      }
      const claims = tokens.claims();
      if (!claims || !tokens.id_token) throw new SignInRefused(400, 'The identity provider gave no ID token.', 'no id_token in the token response');
      let identity: IdentityClaims = { sub: claims.sub, email: claims.email, email_verified: claims.email_verified, name: claims.name };
      // Many providers keep the email out of the ID token: then it is asked of the userinfo endpoint, for the same subject.
      if (identity.email === undefined && current.serverMetadata().userinfo_endpoint) {
        try {
          const info = await oidc.fetchUserInfo(current, tokens.access_token, claims.sub);
          identity = { ...identity, email: info.email, email_verified: info.email_verified, name: identity.name ?? info.name };
        } catch (error) {
          throw refusalOf(error);
        }
      }
      const refusal = emailRefusal(identity, settings);
      if (refusal) throw new SignInRefused(403, refusal, `email rule: ${refusal}`);
      return {
        identity: { method: 'oidc', issuer: current.serverMetadata().issuer, subject: identity.sub },
        email: displayClaim(identity.email)?.toLowerCase(),
        name: displayClaim(identity.name),
        idToken: tokens.id_token,
      };
    },
    async endSessionUrl(idToken, postLogoutRedirectUri) {
      let current: oidc.Configuration;
      try {
        current = await config();
      } catch {
        return undefined;
      }
      if (!current.serverMetadata().end_session_endpoint) return undefined;
      return oidc.buildEndSessionUrl(current, { post_logout_redirect_uri: postLogoutRedirectUri, ...(idToken ? { id_token_hint: idToken } : {}) });
    },
  };
}
