import { ConfigError, loadConfig } from '@ars/config';
import { checkRunsConfig, runsFullConfigSchema } from './config.js';

const valid = {
  MONGO_URL: 'mongodb://127.0.0.1:27017',
  KAFKA_BROKERS: '127.0.0.1:9092',
  INTERNAL_TOKEN: '0123456789abcdef',
  CATALOG_URL: 'http://127.0.0.1:8081',
  SANDBOXES_URL: 'http://127.0.0.1:8083',
};

describe('runs needs CATALOG_URL, SANDBOXES_URL, MONGO_URL, KAFKA_BROKERS and INTERNAL_TOKEN; the time rules have defaults', () => {
  test('defaults: harness limit 30 min, start deadline 2 min, lost grace 1 min, watchdog every 5 s, group runs', () => {
    checkRunsConfig(valid);
    expect(loadConfig(runsFullConfigSchema, valid)).toMatchObject({
      PORT: 8082,
      RUN_TIMEOUT_MS: 1_800_000,
      RUN_START_TIMEOUT_MS: 120_000,
      RUN_LOST_GRACE_MS: 60_000,
      WATCHDOG_INTERVAL_MS: 5_000,
      RUNS_CONSUMER_GROUP: 'runs',
      RUNS_CONSUMER_SESSION_TIMEOUT_MS: 10_000,
    });
  });

  test('every missing requirement is named in one error', () => {
    expect(() => checkRunsConfig({ CATALOG_URL: valid.CATALOG_URL, SANDBOXES_URL: valid.SANDBOXES_URL })).toThrow(
      new ConfigError([
        'MONGO_URL is required (a mongodb:// URL)',
        'KAFKA_BROKERS is required (a comma-separated list of host:port)',
        'INTERNAL_TOKEN is required (a string of at least 16 characters)',
      ]),
    );
  });

  test.each(['CATALOG_URL', 'SANDBOXES_URL'])('%s missing or not a URL is named', (name) => {
    const { [name as keyof typeof valid]: _omitted, ...without } = valid;
    expect(() => checkRunsConfig(without)).toThrow(new RegExp(name));
    expect(() => checkRunsConfig({ ...valid, [name]: 'not a url' })).toThrow(new RegExp(name));
  });

  test('a time rule that is not a positive integer is named', () => {
    expect(() => checkRunsConfig({ ...valid, RUN_TIMEOUT_MS: 'soon' })).toThrow(/RUN_TIMEOUT_MS/);
    expect(() => checkRunsConfig({ ...valid, RUN_LOST_GRACE_MS: '-1' })).toThrow(/RUN_LOST_GRACE_MS/);
  });
});
