// The fuzzing tenant's PATs. Each PAT may make 60 requests in any 60 s (CONTRACT.md, Limits), and a
// 429 from our own pace would hide what the server does with the case. So each request takes a PAT
// that has made fewer than PER_TOKEN_BUDGET requests in the last minute, and a new PAT is made when
// none has: a short CI run needs a handful, a long run by hand as many as its pace asks.
import { createToken, type Account } from '../support/accounts.js';

/** Below the limit of 60: the margin covers requests a PAT made outside the pool's count (a setup read, a cleanup). */
const PER_TOKEN_BUDGET = 50;
const WINDOW_MS = 60_000;

interface PooledToken {
  token: string;
  uses: number[];
}

export class TokenPool {
  private readonly tokens: PooledToken[] = [];
  private making: Promise<PooledToken> | undefined;
  made = 0;

  constructor(
    private readonly baseUrl: string,
    private readonly account: Account,
  ) {}

  /** A PAT with room for one more request in the current minute (the use is counted now). */
  async take(): Promise<string> {
    for (;;) {
      const now = Date.now();
      for (const pooled of this.tokens) {
        while (pooled.uses.length > 0 && (pooled.uses[0] ?? 0) <= now - WINDOW_MS) pooled.uses.shift();
        if (pooled.uses.length < PER_TOKEN_BUDGET) {
          pooled.uses.push(now);
          return pooled.token;
        }
      }
      // One PAT made at a time: the requests waiting for one share it.
      this.making ??= this.make().finally(() => (this.making = undefined));
      await this.making;
    }
  }

  /** Makes PATs until there are `count`: a tenant whose PAT list is compared before and after makes them all first. */
  async ensure(count: number): Promise<void> {
    while (this.tokens.length < count) await this.make();
  }

  /** Every PAT made so far. */
  all(): string[] {
    return this.tokens.map((pooled) => pooled.token);
  }

  private async make(): Promise<PooledToken> {
    const created = await createToken(this.baseUrl, this.account, { name: `fuzz-${this.made}` });
    this.made += 1;
    const pooled = { token: created.token, uses: [] };
    this.tokens.push(pooled);
    return pooled;
  }
}
