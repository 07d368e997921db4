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
}

declare module 'koa' {
  interface DefaultState {
    principal?: Principal;
    session?: SessionPrincipal;
  }
}

export {};
