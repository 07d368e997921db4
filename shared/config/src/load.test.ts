import { spawnSync } from 'node:child_process';
import { ConfigError, env, loadConfig, serviceConfig, environmentOf } from '@ars/config';

describe('values are coerced to their declared types', () => {
  const schema = {
    COUNT: env.integer({ min: 0 }),
    ENABLED: env.boolean(),
    BROKERS: env.list(),
    ENDPOINT: env.url({ protocols: ['http', 'https'] }),
    MODE: env.oneOf(['a', 'b'] as const),
  };
  test('integers, booleans, comma lists, URLs and enums', () => {
    const config = loadConfig(schema, { COUNT: '42', ENABLED: 'yes', BROKERS: ' k1:9092, k2:9092 ,', ENDPOINT: 'http://otel:4318', MODE: 'b' });
    expect(config).toEqual({ COUNT: 42, ENABLED: true, BROKERS: ['k1:9092', 'k2:9092'], ENDPOINT: 'http://otel:4318', MODE: 'b' });
    const count: number = config.COUNT;
    const brokers: string[] = config.BROKERS;
    const mode: 'a' | 'b' = config.MODE;
    expect([count, brokers, mode]).toHaveLength(3);
  });
  test.each([
    ['false', false],
    ['0', false],
    ['TRUE', true],
    ['1', true],
  ])('boolean %s is %s', (raw, value) => {
    expect(loadConfig({ FLAG: env.boolean() }, { FLAG: raw }).FLAG).toBe(value);
  });
});

describe('defaults apply when a variable is unset or empty', () => {
  test('unset and empty take the default; optional without default is undefined', () => {
    const schema = { PORT: env.port({ default: 8080 }), NAME: env.string({ optional: true }) };
    expect(loadConfig(schema, {})).toEqual({ PORT: 8080 });
    expect(loadConfig(schema, { PORT: '', NAME: '  ' })).toEqual({ PORT: 8080 });
    const name: string | undefined = loadConfig(schema, {}).NAME;
    expect(name).toBeUndefined();
  });
});

describe('a bad or missing value throws a ConfigError whose message is one line naming the variable', () => {
  test('PORT must be an integer between 1 and 65535', () => {
    expect(() => loadConfig({ PORT: env.port() }, { PORT: 'abc' })).toThrow(new ConfigError(['PORT must be an integer between 1 and 65535 (got "abc")']));
    try {
      loadConfig({ PORT: env.port() }, { PORT: '70000' });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toBe('Invalid configuration: PORT must be an integer between 1 and 65535 (got "70000")');
    }
  });
  test('a missing required variable is named', () => {
    expect(() => loadConfig({ DATABASE: env.string() }, {})).toThrow('Invalid configuration: DATABASE is required (a non-empty string)');
  });
  test('every wrong variable is named on the same line', () => {
    let message = '';
    try {
      loadConfig({ A: env.integer(), B: env.boolean(), C: env.url() }, { A: '1.5', B: 'maybe', C: 'not a url' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe(
      'Invalid configuration: A must be an integer (got "1.5"); B must be a boolean (true/false, 1/0, yes/no) (got "maybe"); C must be an absolute URL (got "not a url")',
    );
    expect(message).not.toContain('\n');
  });
  test('a secret value is never echoed', () => {
    expect(() => loadConfig({ TOKEN: env.string({ secret: true, minLength: 16 }) }, { TOKEN: 'short-secret' })).toThrow(
      /TOKEN must be a string of at least 16 characters \(got a value that is not shown\)/,
    );
  });
  test('comma list items are validated', () => {
    expect(() => loadConfig(serviceConfig({ service: 'runs', port: 1 }), { KAFKA_BROKERS: 'k1:9092,k2' })).toThrow(
      'Invalid configuration: KAFKA_BROKERS must be a comma-separated list of host:port (got "k1:9092,k2")',
    );
  });
});

describe('the common service settings are a reusable fragment', () => {
  test('defaults: HOST 127.0.0.1, MONGO_DB ars_<service>, LOG_LEVEL info, SHUTDOWN_TIMEOUT_MS 10 s, metrics on loopback at a free port, the HTTP edge timeouts', () => {
    const config = loadConfig(serviceConfig({ service: 'runs', port: 8082 }), {});
    expect(config).toEqual({
      HOST: '127.0.0.1',
      PORT: 8082,
      LOG_LEVEL: 'info',
      MONGO_DB: 'ars_runs',
      SHUTDOWN_TIMEOUT_MS: 10_000,
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: 0,
      HTTP_HEADERS_TIMEOUT_MS: 10_000,
      HTTP_REQUEST_TIMEOUT_MS: 30_000,
      HTTP_KEEP_ALIVE_TIMEOUT_MS: 65_000,
      NODE_ENV: 'development',
    });
    expect(config.MONGO_URL).toBeUndefined();
    expect(config.KAFKA_BROKERS).toBeUndefined();
    expect(config.OTEL_EXPORTER_OTLP_ENDPOINT).toBeUndefined();
  });
  test('a service without a default port requires PORT', () => {
    expect(() => loadConfig(serviceConfig({ service: 'x' }), {})).toThrow('PORT is required');
  });
  test('set values are read and typed', () => {
    const config = loadConfig(
      { ...serviceConfig({ service: 'runs', port: 8082 }), EXTRA: env.integer({ default: 3 }) },
      {
        PORT: '9000',
        MONGO_URL: 'mongodb://127.0.0.1:27017',
        KAFKA_BROKERS: 'a:9092,b:9093',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
        INTERNAL_TOKEN: '0123456789abcdef',
        NODE_ENV: 'test',
        ARS_ENV: 'production',
      },
    );
    expect(config.PORT).toBe(9000);
    expect(config.KAFKA_BROKERS).toEqual(['a:9092', 'b:9093']);
    expect(config.EXTRA).toBe(3);
    expect(environmentOf(config)).toBe('production');
  });
  test('NODE_ENV outside development|test|production is rejected', () => {
    expect(() => loadConfig(serviceConfig({ service: 'x', port: 1 }), { NODE_ENV: 'staging' })).toThrow(
      'NODE_ENV must be one of development, test, production (got "staging")',
    );
  });
});

describe('exitOnConfigError prints the one line to stderr and exits 1, without a stack trace', () => {
  test('child process with a bad PORT', () => {
    // Child processes run built code (build first).
    const script = `
      import { loadConfigOrExit, env } from ${JSON.stringify(new URL('../dist/index.js', import.meta.url).href)};
      loadConfigOrExit({ PORT: env.port() }, { PORT: 'abc' });
      console.log('not reached');
    `;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(result.stderr).toBe('Invalid configuration: PORT must be an integer between 1 and 65535 (got "abc")\n');
    expect(result.stdout).toBe('');
    expect(result.status).toBe(1);
  });
});
