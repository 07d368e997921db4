// Field errors in the API server's words (k8s.io/apimachinery field.Error): the `reason` of a
// StatusCause and the message it prints, `<field>: <message>` in a 422 Status.
export interface FieldCause {
  field: string;
  reason:
    | 'FieldValueRequired'
    | 'FieldValueInvalid'
    | 'FieldValueDuplicate'
    | 'FieldValueNotFound'
    | 'FieldValueNotSupported'
    | 'FieldValueTooLong'
    | 'FieldValueForbidden';
  message: string;
}

/** What validating one object found: the name it gets ('' when it has none) and the causes (none: valid). */
export interface Validation {
  name: string;
  causes: FieldCause[];
}

/** A JSON object as the API server receives it (nothing about it is trusted). */
export type Json = Record<string, unknown>;

const show = (value: unknown): string => (typeof value === 'string' ? `"${value}"` : (JSON.stringify(value) ?? String(value)));

export const required = (field: string): FieldCause => ({ field, reason: 'FieldValueRequired', message: 'Required value' });

export const invalid = (field: string, value: unknown, detail: string): FieldCause => ({
  field,
  reason: 'FieldValueInvalid',
  message: `Invalid value: ${show(value)}: ${detail}`,
});

export const duplicate = (field: string, value: unknown): FieldCause => ({ field, reason: 'FieldValueDuplicate', message: `Duplicate value: ${show(value)}` });

export const notFound = (field: string, value: unknown): FieldCause => ({ field, reason: 'FieldValueNotFound', message: `Not found: ${show(value)}` });

export const forbidden = (field: string, detail: string): FieldCause => ({ field, reason: 'FieldValueForbidden', message: `Forbidden: ${detail}` });

export const tooLong = (field: string, limit: number): FieldCause => ({
  field,
  reason: 'FieldValueTooLong',
  message: `Too long: must have at most ${limit} bytes`,
});

export function notSupported(field: string, value: unknown, supported: readonly string[]): FieldCause {
  return {
    field,
    reason: 'FieldValueNotSupported',
    message: `Unsupported value: ${show(value)}: supported values: ${supported.map((s) => `"${s}"`).join(', ')}`,
  };
}

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A list field: its items, or [] when absent (a non-list is reported). */
export function listOf(value: unknown, field: string, causes: FieldCause[]): unknown[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value;
  causes.push(invalid(field, value, 'must be a list'));
  return [];
}

/** A map field: its entries, or [] when absent (a non-map is reported). */
export function entriesOf(value: unknown, field: string, causes: FieldCause[]): [string, unknown][] {
  if (value === undefined || value === null) return [];
  if (isObject(value)) return Object.entries(value);
  causes.push(invalid(field, value, 'must be a map'));
  return [];
}
