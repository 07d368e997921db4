import { context, trace, ROOT_CONTEXT, type Context, type ContextManager } from '@opentelemetry/api';
import { createLogger, requestLogger, REDACTED } from '@ars/logger';

function capture() {
  const lines: string[] = [];
  const destination = { write: (line: string) => void lines.push(line) };
  return { destination, lines, records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

/** A synchronous context manager: enough to make a span active for the duration of a callback. */
class StackContextManager implements ContextManager {
  private stack: Context[] = [];
  active(): Context {
    return this.stack.at(-1) ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(ctx: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    this.stack.push(ctx);
    try {
      return fn.call(thisArg, ...args);
    } finally {
      this.stack.pop();
    }
  }
  bind<T>(_ctx: Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.stack = [];
    return this;
  }
}

describe('logs are JSON lines with the service, an ISO time and the level name', () => {
  test('one line per call', () => {
    const out = capture();
    createLogger({ service: 'runs', destination: out.destination }).info({ runId: 'r1' }, 'run started');
    const [record] = out.records();
    expect(record).toMatchObject({ service: 'runs', level: 'info', msg: 'run started', runId: 'r1' });
    expect(new Date(String(record?.time)).toISOString()).toBe(record?.time);
  });
  test('the level filters', () => {
    const out = capture();
    const logger = createLogger({ service: 'runs', level: 'warn', destination: out.destination });
    logger.info('hidden');
    logger.warn('shown');
    expect(out.records().map((r) => r.msg)).toEqual(['shown']);
  });
  test('errors are logged with their stack under err', () => {
    const out = capture();
    createLogger({ service: 'runs', destination: out.destination }).error({ err: new Error('boom') }, 'failed');
    expect(out.records()[0]?.err).toMatchObject({ type: 'Error', message: 'boom', stack: expect.stringContaining('boom') });
  });
});

describe('a secret never reaches the output', () => {
  const secret = 'tok_SECRETSECRETSECRETSECRETSECRET12';
  test.each([
    ['authorization header', { req: { headers: { authorization: `Bearer ${secret}`, host: 'x' } } }],
    ['cookie header', { headers: { cookie: `session=${secret}` } }],
    ['internal token header', { request: { headers: { 'x-internal-token': secret } } }],
    ['set-cookie header', { res: { headers: { 'set-cookie': secret } } }],
    ['*.token', { pat: { token: secret } }],
    ['*.password', { user: { password: secret } }],
    ['*.secret', { client: { secret } }],
    ['*.apiKey', { provider: { apiKey: secret } }],
    ['top-level token', { token: secret }],
    ['two levels down', { data: { provider: { apiKey: secret } } }],
    ['config.env of a tool server', { config: { command: 'npx', env: { GITHUB_TOKEN: secret } } }],
    ['config.http_headers of a tool server', { server: { config: { url: 'https://x', http_headers: { Authorization: secret } } } }],
  ])('%s is [REDACTED]', (_name, fields) => {
    const out = capture();
    createLogger({ service: 'gateway', destination: out.destination }).info(fields, 'request');
    expect(out.lines.join('')).not.toContain(secret);
    expect(out.lines.join('')).toContain(REDACTED);
  });
  test('child loggers redact too', () => {
    const out = capture();
    const child = requestLogger(createLogger({ service: 'gateway', destination: out.destination }), 'req-1');
    child.info({ body: { password: secret } }, 'x');
    expect(out.lines.join('')).not.toContain(secret);
  });
  test('extra paths can be added', () => {
    const out = capture();
    createLogger({ service: 'x', destination: out.destination, redact: ['payload.providerKey'] }).info({ payload: { providerKey: secret } });
    expect(out.lines.join('')).not.toContain(secret);
  });
});

describe('request_id is bound on per-request child loggers', () => {
  test('every line of the child carries request_id', () => {
    const out = capture();
    const child = requestLogger(createLogger({ service: 'runs', destination: out.destination }), 'abc-123');
    child.info('one');
    child.warn('two');
    expect(out.records().map((r) => r.request_id)).toEqual(['abc-123', 'abc-123']);
  });
});

describe('trace_id and span_id come from the active OpenTelemetry span', () => {
  const manager = new StackContextManager();
  beforeAll(() => context.setGlobalContextManager(manager));
  afterAll(() => context.disable());

  test('inside a span both ids are on the line; outside neither is', () => {
    const out = capture();
    const logger = createLogger({ service: 'runs', destination: out.destination });
    const spanContext = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 };
    context.with(trace.setSpanContext(context.active(), spanContext), () => logger.info('inside'));
    logger.info('outside');
    const [inside, outside] = out.records();
    expect(inside).toMatchObject({ trace_id: spanContext.traceId, span_id: spanContext.spanId });
    expect(outside).not.toHaveProperty('trace_id');
    expect(outside).not.toHaveProperty('span_id');
  });
});

describe('secrets inside the message, top-level string fields and an error are redacted by @ars/sanitize', () => {
  const token = `ghp_${'Z'.repeat(36)}`;
  test.each([
    ['the message', (logger: ReturnType<typeof createLogger>) => logger.info(`cloning https://x-access-token:${token}@github.com/a/b`)],
    ['a formatted message', (logger: ReturnType<typeof createLogger>) => logger.info('pushing with %s', token)],
    ['a top-level string field', (logger: ReturnType<typeof createLogger>) => logger.warn({ stderr: `fatal: GITHUB_TOKEN=${token}` }, 'git failed')],
    ['an error’s message and stack', (logger: ReturnType<typeof createLogger>) => logger.error({ err: new Error(`auth failed for ${token}`) }, 'failed')],
    ['an error logged as the object', (logger: ReturnType<typeof createLogger>) => logger.error(new Error(`auth failed for ${token}`))],
  ])('%s', (_name, log) => {
    const out = capture();
    log(createLogger({ service: 'sandboxes', destination: out.destination }));
    expect(out.lines.join('')).not.toContain(token);
    expect(out.lines.join('')).toMatch(/\[REDACTED\]|\*\*\*@/);
  });
  test('the caller’s object is not modified', () => {
    const fields = { stderr: `GITHUB_TOKEN=${token}` };
    createLogger({ service: 'x', destination: capture().destination }).info(fields, 'x');
    expect(fields.stderr).toBe(`GITHUB_TOKEN=${token}`);
  });
});

describe('an error under any key is logged as data, never thrown', () => {
  test('a DOMException (an abort reason) as `cause` is serialized with its message and stack', async () => {
    const reason = AbortSignal.timeout(1);
    await new Promise((resolve) => reason.addEventListener('abort', resolve, { once: true }));
    const out = capture();
    const logger = createLogger({ service: 'x', destination: out.destination });
    expect(() => logger.warn({ code: 'SERVICE_UNAVAILABLE', cause: reason.reason as Error }, 'peer timed out')).not.toThrow();
    const [record] = out.records();
    expect(record?.cause).toMatchObject({ type: 'DOMException', name: 'TimeoutError', message: 'The operation was aborted due to timeout' });
  });
  test('an Error under another key has its secrets redacted', () => {
    const out = capture();
    createLogger({ service: 'x', destination: out.destination }).warn(
      { failure: new Error('push to https://x:ghp_abcdefghijklmnopqrstuvwxyz0123@host failed') },
      'push failed',
    );
    expect(out.lines.join('')).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123');
    expect(out.records()[0]?.failure).toMatchObject({ type: 'Error' });
  });
});
