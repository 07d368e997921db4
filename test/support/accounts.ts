// Accounts and tokens are the gateway's public API: their helpers live in @ars/gateway/testing.
// Imported by their own entry point: the whole of @ars/gateway/testing loads the gateway itself
// (about 1.4 s of module loading in every test file that only wants an account).
export { bearer, call, createAccount, createToken, dataOf, errorOf, tenant } from '@ars/gateway/testing/accounts';
export type { Account, Answer, CreatedToken } from '@ars/gateway/testing/accounts';
