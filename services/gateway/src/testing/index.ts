// The gateway's test support (`@ars/gateway/testing`), for tests only: the build excludes src/testing.
export { bearer, call, createAccount, createToken, dataOf, errorOf, tenant } from './accounts.js';
export type { Account, Answer, CreatedToken } from './accounts.js';
export { gatewaySuite } from './gatewaySuite.js';
export type { GatewaySuite, GatewaySuiteOptions } from './gatewaySuite.js';
export { startGatewayUnderTest } from './gatewayUnderTest.js';
export type { GatewayOptions, GatewayUnderTest, RunningSystem } from './gatewayUnderTest.js';
export { startEmptyPeer, startRunsStandIn } from './peerStandIns.js';
export type { EmptyPeer, RunsStandIn } from './peerStandIns.js';
export { letRunStartMinutePass } from './runStartWindow.js';
export { startRunAt } from './runStarts.js';
export { storeExpiringToken } from './expiringToken.js';
export { startRedis, stopRedis } from './privateRedis.js';
export { startIdentityProvider } from './identityProvider.js';
export type { IdentityAccount, IdentityProvider, IdentityProviderOptions } from './identityProvider.js';
