// FailureEnvelope and FAILURE_ENVELOPE_SCHEMA are one shape: the type assertion fails
// `npm run typecheck` when either drifts; the runtime test holds real envelopes to the schema.
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { FromSchema } from 'json-schema-to-ts';
import { ERROR_CODES, FAILURE_ENVELOPE_SCHEMA, failureEnvelope, type ErrorCode, type FailureEnvelope } from '@ars/errors';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const same = <T extends true>(): T => true as T;
same<Same<FailureEnvelope, FromSchema<typeof FAILURE_ENVELOPE_SCHEMA>>>();

const validate = new Ajv2020({ strict: true }).compile(FAILURE_ENVELOPE_SCHEMA);

describe('the failure envelope schema is {ok:false, error:{code, message}} with the contract codes', () => {
  test.each(Object.keys(ERROR_CODES) as ErrorCode[])('%s envelopes match it', (code) => {
    expect(validate(failureEnvelope(code, 'why'))).toBe(true);
  });
  test('an unknown code, ok:true or an extra field does not', () => {
    expect(validate({ ok: false, error: { code: 'TEAPOT', message: 'x' } })).toBe(false);
    expect(validate({ ok: true, error: { code: 'NOT_FOUND', message: 'x' } })).toBe(false);
    expect(validate({ ok: false, error: { code: 'NOT_FOUND', message: 'x', stack: 'at …' } })).toBe(false);
  });
});
