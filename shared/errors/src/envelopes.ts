import type { ErrorCode } from './codes.js';

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
