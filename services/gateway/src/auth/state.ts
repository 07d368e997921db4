import type { Scope } from '../domain/scopes.js';

/** Who is calling a public route: the PAT's owner, the PAT and its scopes. */
export interface Principal {
  userId: string;
  tokenId: string;
  scopes: readonly Scope[];
}

/** The browser session of an internal `/api/*` route. */
export interface SessionPrincipal {
  userId: string;
  idHash: string;
  expiresAt: Date;
  /** The OpenID Connect sign-in's ID token, for the provider's sign-out. */
  idToken?: string;
}

declare module 'koa' {
  interface DefaultState {
    principal?: Principal;
    session?: SessionPrincipal;
  }
}

export {};
