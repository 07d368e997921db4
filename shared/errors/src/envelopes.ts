import { ERROR_CODES, type ErrorCode } from './codes.js';

export interface SuccessEnvelope<T> {
  ok: true;
  data: T;
}
export interface FailureEnvelope {
  ok: false;
  error: { code: ErrorCode; message: string };
}
export type Envelope<T> = SuccessEnvelope<T> | FailureEnvelope;

export function successEnvelope<T>(data: T): SuccessEnvelope<T> {
  return { ok: true, data };
}

export function failureEnvelope(code: ErrorCode, message: string): FailureEnvelope {
  return { ok: false, error: { code, message } };
}

/**
 * JSON Schema of the failure envelope (the gateway's OpenAPI document shows it; envelopes.test.ts
 * holds FailureEnvelope to it). `code` is one of the contract's codes.
 */
export const FAILURE_ENVELOPE_SCHEMA = {
  type: 'object',
  required: ['ok', 'error'],
  additionalProperties: false,
  properties: {
    ok: { const: false },
    error: {
      type: 'object',
      required: ['code', 'message'],
      additionalProperties: false,
      properties: {
        code: { type: 'string', enum: Object.keys(ERROR_CODES) as ErrorCode[] },
        message: { type: 'string', description: 'For people; may change between releases. Clients branch on `code`.' },
      },
    },
  },
} as const;
