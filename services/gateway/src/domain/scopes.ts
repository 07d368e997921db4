/** CONTRACT.md, Authentication 6: `read` grants every GET; `write` grants the mutating endpoints. */
export const SCOPES = ['read', 'write'] as const;
export type Scope = (typeof SCOPES)[number];
export const DEFAULT_SCOPES: readonly Scope[] = ['read', 'write'];

export function isScope(value: unknown): value is Scope {
  return value === 'read' || value === 'write';
}

/** The scope a public route needs, from its HTTP method alone (the contract's index follows this rule). */
export function scopeForMethod(method: string): Scope {
  return method === 'GET' || method === 'HEAD' ? 'read' : 'write';
}

/** Authentication 7 and Errors: the message names the missing scope, and the `write` scope. */
export function missingScopeMessage(scope: Scope): string {
  return scope === 'write'
    ? "This token lacks the required scope 'write'; create a token with the write scope"
    : "This token lacks the required scope 'read'; create a token with the read scope (tokens default to read and write)";
}
