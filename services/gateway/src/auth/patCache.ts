// The PATs this gateway looked up lately, by the SHA-256 of the plaintext, so most requests of a
// busy PAT need no MongoDB read. Safe because of what stays per request: its expiry is checked
// against the kept `expiresAt` on every request, and its revocation by its mark in Redis, read in the
// per-PAT limit's own round trip (handlers/rateLimits.ts `authenticateAndLimitPat`); a Redis that
// lost its marks answers a new epoch and the cache is emptied.
import type { PersonalAccessTokenDocument } from '../store/personalAccessTokens.js';

export interface PatCacheSettings {
  ttlMs: number;
  /** At most this many PATs kept (the oldest go first). */
  maxEntries: number;
}

interface Entry {
  token: PersonalAccessTokenDocument;
  keptAt: number;
}

export class PatCache {
  private readonly entries = new Map<string, Entry>();
  /** The revocation marks' epoch the kept PATs were checked under. */
  private epoch: string | undefined;

  constructor(
    private readonly settings: PatCacheSettings,
    private readonly clock: () => number = Date.now,
  ) {}

  get(tokenHash: string): PersonalAccessTokenDocument | undefined {
    const entry = this.entries.get(tokenHash);
    if (!entry) return undefined;
    if (this.clock() - entry.keptAt >= this.settings.ttlMs) {
      this.entries.delete(tokenHash);
      return undefined;
    }
    return entry.token;
  }

  keep(tokenHash: string, token: PersonalAccessTokenDocument): void {
    this.entries.delete(tokenHash);
    this.entries.set(tokenHash, { token, keptAt: this.clock() });
    while (this.entries.size > this.settings.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  forget(tokenHash: string): void {
    this.entries.delete(tokenHash);
  }

  /**
   * Notes the marks' epoch a request saw; false when it is not the one the kept PATs were checked
   * under (the first one seen, or Redis lost its data): everything kept is then forgotten, and a PAT
   * the request took from here must be read again.
   */
  sameEpoch(epoch: string): boolean {
    if (this.epoch === epoch) return true;
    this.epoch = epoch;
    this.entries.clear();
    return false;
  }

  get size(): number {
    return this.entries.size;
  }
}
