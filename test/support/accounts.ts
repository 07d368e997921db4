// Accounts and tokens are the gateway's public API: their helpers live in @ars/gateway/testing.
export { bearer, call, createAccount, createToken, dataOf, errorOf, tenant } from '@ars/gateway/testing';
export type { Account, Answer, CreatedToken } from '@ars/gateway/testing';
