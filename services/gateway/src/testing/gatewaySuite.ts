// The whole system for one HTTP test file: every gateway HTTP test reaches it the same way, so the
// way is written here once. The run's shared system, unless the suite asks for one of its own.
import { sharedSystem, type SystemView } from '@ars/testenv';
import { afterAll, beforeAll } from '@jest/globals';
import { startGatewayUnderTest, type GatewayUnderTest } from './gatewayUnderTest.js';

export interface GatewaySuiteOptions {
  /** Also start a gateway whose runs and unbuilt services are stand-ins that record what it forwarded. */
  withStandIns?: boolean;
}

/** What a test reads once `beforeAll` has run; reading earlier throws. */
export interface GatewaySuite {
  system: SystemView;
  /** The stack's gateway. */
  gateway: SystemView['gateway'];
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
  const system = sharedSystem();
  let standIns: GatewayUnderTest | undefined;
  beforeAll(async () => {
    if (options.withStandIns) standIns = await startGatewayUnderTest({ system: system() });
  }, 60_000);
  afterAll(async () => {
    await standIns?.stop();
  }, 60_000);
  const withStandIns = (): GatewayUnderTest => {
    if (!standIns) throw new Error('no gateway with stand-ins: start the suite with { withStandIns: true }, then use it inside tests or hooks');
    return standIns;
  };
  return {
    get system() {
      return system();
    },
    get gateway() {
      return system().gateway;
    },
    get api() {
      return `${system().gateway.baseUrl}${PUBLIC_API}`;
    },
    get keys() {
      return `${system().gateway.baseUrl}${API_KEYS}`;
    },
    get standIns() {
      return withStandIns();
    },
    get standInsApi() {
      return `${withStandIns().baseUrl}${PUBLIC_API}`;
    },
  };
}
