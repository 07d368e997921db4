// What a gateway needs to start under ARS_ENV=production (each test that leaves one out says which):
// the public origin, the OAuth cookie keys and a sign-in method (OpenID Connect; discovered only at
// the first sign-in, so the issuer need not answer).
export const PRODUCTION_GATEWAY_ENV = {
  ARS_ENV: 'production',
  PUBLIC_BASE_URL: 'https://ars.example.test',
  OAUTH_COOKIE_KEYS: 'a-production-oauth-cookie-key-0123456789',
  OIDC_ISSUER: 'https://login.example.test',
  OIDC_CLIENT_ID: 'agent-run-service',
  OIDC_CLIENT_SECRET: 'an-oidc-client-secret',
  OIDC_ALLOWED_EMAIL_DOMAINS: 'example.test',
} as const;
