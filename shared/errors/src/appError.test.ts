import { AppError, toAppError, httpStatusOf, codeForHttpStatus, failureEnvelope } from '@ars/errors';

describe('every error code maps to the HTTP status the contract gives it', () => {
  test.each([
    ['BAD_REQUEST', 400],
    ['UNAUTHORIZED', 401],
    ['FORBIDDEN', 403],
    ['NOT_FOUND', 404],
    ['CONFLICT', 409],
    ['IDEMPOTENCY_CONFLICT', 409],
    ['RATE_LIMITED', 429],
    ['INTERNAL_ERROR', 500],
    ['SERVICE_UNAVAILABLE', 503],
  ] as const)('%s is HTTP %i', (code, status) => {
    expect(httpStatusOf(code)).toBe(status);
    expect(new AppError(code, 'x').status).toBe(status);
  });
});

describe('a 429 carries Retry-After: 60', () => {
  test('rateLimited sets the header', () => {
    expect(AppError.rateLimited().headers).toEqual({ 'Retry-After': '60' });
  });
});

describe('unknown errors become INTERNAL_ERROR without leaking their message', () => {
  test('a plain Error is wrapped', () => {
    const wrapped = toAppError(new Error('db password is hunter2'));
    expect(wrapped.code).toBe('INTERNAL_ERROR');
    expect(wrapped.message).not.toContain('hunter2');
  });
  test('an AppError passes through unchanged', () => {
    const original = AppError.notFound('Run not found');
    expect(toAppError(original)).toBe(original);
  });
});

describe('statuses from peers without a contract code map back to a code', () => {
  test.each([
    [400, 'BAD_REQUEST'],
    [404, 'NOT_FOUND'],
    [502, 'SERVICE_UNAVAILABLE'],
    [418, 'INTERNAL_ERROR'],
  ] as const)('%i is %s', (status, code) => {
    expect(codeForHttpStatus(status)).toBe(code);
  });
});

describe('the failure envelope is {ok:false, error:{code,message}}', () => {
  test('shape', () => {
    expect(failureEnvelope('NOT_FOUND', 'gone')).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: 'gone' } });
  });
});
