import { createLogger } from '@ars/logger';
import {
  characterCount,
  clampLimit,
  createHttpApp,
  tooManyCharacters,
  mountRouters,
  ok,
  parseQuery,
  requestBody,
  Router,
  startHttpServer,
  validateBody,
  type RunningServer,
} from '@ars/http-app';

interface StartRun {
  repoId: string;
  prompt: string;
  harness: 'codex' | 'claude-code';
}
const parseStartRun = validateBody<StartRun>({
  type: 'object',
  required: ['repoId', 'prompt'],
  properties: {
    repoId: { type: 'string', minLength: 1 },
    prompt: { type: 'string', maxLength: 100_000 },
    harness: { enum: ['codex', 'claude-code'], default: 'codex' },
    branch: { type: 'object', properties: { base: { type: 'string' } } },
    internalOnly: false,
  },
});

const parseList = parseQuery<{ limit?: number; q?: string; archived?: boolean }>({
  type: 'object',
  properties: { limit: { type: 'integer' }, q: { type: 'string' }, archived: { type: 'boolean' } },
});

describe('validateBody throws BAD_REQUEST naming the field', () => {
  test.each([
    [{ prompt: 'x' }, 'repoId is required'],
    [{ repoId: '', prompt: 'x' }, 'repoId must not be empty'],
    [{ repoId: 5, prompt: 'x' }, 'repoId must be a string'],
    [{ repoId: 'r', prompt: 'x', harness: 'gpt' }, 'harness must be one of codex, claude-code'],
    [{ repoId: 'r', prompt: 'x', branch: { base: 3 } }, 'branch.base must be a string'],
    [[1], 'body must be an object'],
    [{ repoId: 'r', prompt: 'x', internalOnly: 'set' }, 'internalOnly is not allowed'],
  ])('%j → %s', (body, message) => {
    expect(() => parseStartRun(body)).toThrow(expect.objectContaining({ code: 'BAD_REQUEST', status: 400, message }));
  });
  test('a valid body is returned with defaults applied', () => {
    expect(parseStartRun({ repoId: 'r', prompt: 'p' })).toEqual({ repoId: 'r', prompt: 'p', harness: 'codex' });
  });
});

describe('parseQuery coerces query strings and names the bad parameter', () => {
  test('integers and booleans are coerced', () => {
    expect(parseList({ limit: '50', q: 'abc', archived: 'true' })).toEqual({ limit: 50, q: 'abc', archived: true });
  });
  test('limit must be an integer', () => {
    expect(() => parseList({ limit: 'ten' })).toThrow('limit must be an integer');
  });
});

describe('list limit values outside the documented range are clamped into it', () => {
  const range = { min: 1, max: 200, default: 100 };
  test.each([
    [undefined, 100],
    ['', 100],
    ['0', 1],
    ['-5', 1],
    ['500', 200],
    ['50', 50],
    [7, 7],
    ['99999999999999999999', 200],
    ['-99999999999999999999', 1],
    ['9'.repeat(400), 200],
    [1e20, 200],
  ])('%j → %i', (raw, expected) => {
    expect(clampLimit(raw, range)).toBe(expected);
  });
  test.each([['abc'], ['1.5'], [2.5], ['1e3'], [Number.POSITIVE_INFINITY], [Number.NaN]])('%j is 400 "limit must be an integer"', (raw) => {
    expect(() => clampLimit(raw, range)).toThrow(expect.objectContaining({ code: 'BAD_REQUEST', message: 'limit must be an integer' }));
  });
});

describe('characters are counted as the contract counts them: code points, the unit of ajv maxLength', () => {
  const limited = validateBody<{ text: string }>({ type: 'object', properties: { text: { type: 'string', maxLength: 3 } } });
  test('an emoji is one character (two UTF-16 units)', () => {
    expect(characterCount('😀😀😀')).toBe(3);
    expect('😀😀😀'.length).toBe(6);
    expect(characterCount('')).toBe(0);
  });
  test('tooManyCharacters agrees with a schema maxLength on both sides of the limit', () => {
    expect(tooManyCharacters('text', '😀😀😀', 3)).toBeNull();
    expect(() => limited({ text: '😀😀😀' })).not.toThrow();
    expect(tooManyCharacters('text', '😀😀😀😀', 3)).toBe('text must be at most 3 characters');
    expect(() => limited({ text: '😀😀😀😀' })).toThrow();
  });
});

describe('validation errors reach the client as 400 envelopes', () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
  });
  test('over HTTP', async () => {
    const router = new Router();
    router.post('/runs', (ctx) => ok(ctx, parseStartRun(requestBody(ctx)), 202));
    router.get('/repos', (ctx) => ok(ctx, { limit: clampLimit(parseList(ctx.query).limit, { min: 1, max: 200, default: 100 }) }));
    const app = mountRouters(createHttpApp({ service: 't', logger: createLogger({ service: 't', level: 'silent' }) }), router);
    server = await startHttpServer(app);
    const bad = await fetch(`${server.url}/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"prompt":"x"}' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ ok: false, error: { code: 'BAD_REQUEST', message: 'repoId is required' } });
    const clamped = await fetch(`${server.url}/repos?limit=1000`);
    expect(await clamped.json()).toEqual({ ok: true, data: { limit: 200 } });
  });
});
