export { ArsClient, exchangeLoginCode, type ArsClientOptions, type IdempotencyOptions } from './client.js';
export { ArsApiError } from './errors.js';
export type { RetryOptions } from './transport.js';
export type { WaitOptions } from './runWait.js';
export type { FollowItem, FollowOptions } from './runFollow.js';
export type * from './types.js';
