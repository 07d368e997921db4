// The whole system for one HTTP test file, started once before its first test and stopped after its
// last: every gateway HTTP test starts it the same way, so the way is written here once.
import { startSystem, type System } from '@ars/system-tests/support';
import { startGatewayUnderTest, type GatewayUnderTest } from './gatewayUnderTest.js';

export interface GatewaySuiteOptions {
  /** Also start a gateway whose runs and unbuilt services are stand-ins that record what it forwarded. */
  withStandIns?: boolean;
}

/** What a test reads once `beforeAll` has run; reading earlier throws. */
export interface GatewaySuite {
  system: System;
  /** The stack's gateway. */
  gateway: System['gateway'];
  /** The stack gateway's public API root (`/api/v1/svc`). */
  api: string;
  /** The stack gateway's personal access token route (`/api/settings/api-keys`). */
  keys: string;
  /** The gateway with stand-ins (`withStandIns`). */
  standIns: GatewayUnderTest;
  /** Its public API root. */
  standInsApi: string;
}

const PUBLIC_API = '/api/v1/svc';
const API_KEYS = '/api/settings/api-keys';

/** Registers the suite's `beforeAll`/`afterAll`; the answer's fields are readable inside tests and hooks. */
export function gatewaySuite(options: GatewaySuiteOptions = {}): GatewaySuite {
  let system: System | undefined;
  let standIns: GatewayUnderTest | undefined;
  beforeAll(async () => {
    system = await startSystem();
    if (options.withStandIns) standIns = await startGatewayUnderTest({ system });
  }, 120_000);
  afterAll(async () => {
    await standIns?.stop();
    await system?.stop();
  }, 60_000);
  const started = (): System => {
    if (!system) throw new Error('the system is not started (use it inside tests or hooks)');
    return system;
  };
  const withStandIns = (): GatewayUnderTest => {
    if (!standIns) throw new Error('no gateway with stand-ins: start the suite with { withStandIns: true }, then use it inside tests or hooks');
    return standIns;
  };
  return {
    get system() {
      return started();
    },
    get gateway() {
      return started().gateway;
    },
    get api() {
      return `${started().gateway.baseUrl}${PUBLIC_API}`;
    },
    get keys() {
      return `${started().gateway.baseUrl}${API_KEYS}`;
    },
    get standIns() {
      return withStandIns();
    },
    get standInsApi() {
      return `${withStandIns().baseUrl}${PUBLIC_API}`;
    },
  };
}
