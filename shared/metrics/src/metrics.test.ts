import { counter, gauge, histogram, metricsText, parseMetricsText, registry, sampledEvery, startProcessMetrics, sumOf, SERVICE_LABEL } from '@ars/metrics';

async function scrape() {
  return parseMetricsText((await metricsText()).body);
}

describe('one registry per process: a metric is made once and shared by every module asking for it', () => {
  test('the same name gives the same counter; its increments show in the text format', async () => {
    const first = counter({ name: 'ars_test_shared_total', help: 'test', labelNames: ['kind'] });
    const second = counter({ name: 'ars_test_shared_total', help: 'test', labelNames: ['kind'] });
    expect(second).toBe(first);
    first.inc({ kind: 'a' });
    second.inc({ kind: 'a' }, 2);
    expect(sumOf(await scrape(), 'ars_test_shared_total', { kind: 'a' })).toBe(3);
  });
  test('a name registered with another type is refused', () => {
    counter({ name: 'ars_test_typed_total', help: 'test', labelNames: [] });
    expect(() => gauge({ name: 'ars_test_typed_total', help: 'test', labelNames: [] })).toThrow('registered already with another type');
  });
  test('the answer is the Prometheus text format (version 0.0.4)', async () => {
    expect((await metricsText()).contentType).toContain('text/plain; version=0.0.4');
  });
});

describe('startProcessMetrics names the service on every sample and adds Node process metrics', () => {
  test('ars_service on our samples and on process_* / nodejs_*', async () => {
    startProcessMetrics('unit');
    counter({ name: 'ars_test_labelled_total', help: 'test', labelNames: [] }).inc();
    const parsed = await scrape();
    expect(parsed.samples.find((s) => s.name === 'ars_test_labelled_total')?.labels).toEqual({ [SERVICE_LABEL]: 'unit' });
    expect(parsed.types.get('process_cpu_user_seconds_total')).toBe('counter');
    expect(parsed.types.get('nodejs_eventloop_lag_seconds')).toBe('gauge');
    expect(sumOf(parsed, 'process_resident_memory_bytes', { [SERVICE_LABEL]: 'unit' })).toBeGreaterThan(0);
  });
});

describe('histograms observe durations in seconds into cumulative buckets', () => {
  test('an observation lands in every bucket at or above it, in _count and _sum', async () => {
    const h = histogram({ name: 'ars_test_duration_seconds', help: 'test', labelNames: ['route'] });
    h.observe({ route: '/x/:id' }, 0.3);
    const parsed = await scrape();
    expect(parsed.types.get('ars_test_duration_seconds')).toBe('histogram');
    expect(sumOf(parsed, 'ars_test_duration_seconds_bucket', { route: '/x/:id', le: '0.25' })).toBe(0);
    expect(sumOf(parsed, 'ars_test_duration_seconds_bucket', { route: '/x/:id', le: '0.5' })).toBe(1);
    expect(sumOf(parsed, 'ars_test_duration_seconds_bucket', { route: '/x/:id', le: '+Inf' })).toBe(1);
    expect(sumOf(parsed, 'ars_test_duration_seconds_count', { route: '/x/:id' })).toBe(1);
    expect(sumOf(parsed, 'ars_test_duration_seconds_sum', { route: '/x/:id' })).toBeCloseTo(0.3);
  });
});

describe('parseMetricsText reads the exposition format exactly', () => {
  test('labels with escaped quotes, backslashes and newlines; special values; timestamps', () => {
    const parsed = parseMetricsText(
      [
        '# HELP a_total help text',
        '# TYPE a_total counter',
        'a_total{path="C:\\\\dir",quote="say \\"hi\\"",nl="a\\nb"} 2',
        'b NaN',
        'c{le="+Inf"} +Inf 1700000000000',
        '',
      ].join('\n'),
    );
    expect(parsed.samples[0]).toEqual({ name: 'a_total', labels: { path: 'C:\\dir', quote: 'say "hi"', nl: 'a\nb' }, value: 2 });
    expect(parsed.samples[1]?.value).toBeNaN();
    expect(parsed.samples[2]).toEqual({ name: 'c', labels: { le: '+Inf' }, value: Number.POSITIVE_INFINITY });
    expect(parsed.types.get('a_total')).toBe('counter');
  });
  test('a line that is not a sample is an error, not skipped', () => {
    expect(() => parseMetricsText('a_total{x="1" 2')).toThrow('not a sample line');
    expect(() => parseMetricsText('a_total{x=1} 2')).toThrow('malformed labels');
  });
});

describe('sampledEvery: a scrape-time read costs at most one read per interval, and never fails the scrape', () => {
  test('scrapes within the interval get the last result; concurrent ones share one read', async () => {
    let now = 0;
    let reads = 0;
    const read = sampledEvery(async () => ++reads, { minIntervalMs: 10_000, now: () => now });
    expect(await Promise.all([read(), read(), read()])).toEqual([1, 1, 1]);
    now = 9_999;
    expect(await read()).toBe(1);
    now = 10_000;
    expect(await read()).toBe(2);
    expect(reads).toBe(2);
  });
  test('a failing or hanging read leaves the last result standing and is reported', async () => {
    let now = 0;
    let mode: 'ok' | 'fail' | 'hang' = 'ok';
    const errors: string[] = [];
    const read = sampledEvery(
      () => (mode === 'ok' ? Promise.resolve('fresh') : mode === 'fail' ? Promise.reject(new Error('broker away')) : new Promise<string>(() => undefined)),
      { minIntervalMs: 1, timeoutMs: 50, now: () => now, onError: (e) => errors.push((e as Error).message) },
    );
    expect(await read()).toBe('fresh');
    mode = 'fail';
    now = 10;
    expect(await read()).toBe('fresh');
    mode = 'hang';
    now = 20;
    expect(await read()).toBe('fresh');
    expect(errors).toEqual(['broker away', 'no answer within 50 ms']);
  });
});

afterAll(() => registry.resetMetrics());
