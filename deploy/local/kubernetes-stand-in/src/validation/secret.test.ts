import { describe, expect, it } from '@jest/globals';
import { validateSecret } from './secret.js';

const base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

describe('a Secret is valid with config keys, base64 data and at most 1 MiB', () => {
  it.each([
    [
      'opaque data and stringData',
      {
        metadata: { name: 'sandbox-1-clone', labels: { app: 'x' } },
        type: 'Opaque',
        immutable: true,
        data: { 'clone-url': base64('https://x@example.com/r.git') },
        stringData: { 'b.c': 'd' },
      },
    ],
    ['no data at all', { metadata: { name: 'empty' } }],
    ['a TLS secret with both keys', { metadata: { name: 'tls' }, type: 'kubernetes.io/tls', data: { 'tls.crt': base64('c'), 'tls.key': base64('k') } }],
  ])('%s', (_what, secret) => {
    expect(validateSecret(secret).causes).toEqual([]);
  });
});

describe('a Secret is refused for what the API server refuses', () => {
  it.each([
    ['no name', { data: {} }, 'metadata.name', 'FieldValueRequired'],
    ['a name that is no DNS subdomain', { metadata: { name: 'Clone_URL' } }, 'metadata.name', 'FieldValueInvalid'],
    ['a data key with "/"', { metadata: { name: 's' }, data: { 'a/b': base64('x') } }, 'data[a/b]', 'FieldValueInvalid'],
    ['a data key ".."', { metadata: { name: 's' }, data: { '..': base64('x') } }, 'data[..]', 'FieldValueInvalid'],
    ['a stringData key with a space', { metadata: { name: 's' }, stringData: { 'a b': 'x' } }, 'stringData[a b]', 'FieldValueInvalid'],
    ['data that is not base64', { metadata: { name: 's' }, data: { key: 'not base64!' } }, 'data[key]', 'FieldValueInvalid'],
    ['data over 1 MiB', { metadata: { name: 's' }, stringData: { big: 'x'.repeat(1024 * 1024 + 1) } }, 'data', 'FieldValueTooLong'],
    [
      'a TLS secret without its key',
      { metadata: { name: 's' }, type: 'kubernetes.io/tls', data: { 'tls.crt': base64('c') } },
      'data[tls.key]',
      'FieldValueRequired',
    ],
  ])('%s', (_what, secret, field, reason) => {
    expect(validateSecret(secret).causes).toContainEqual(expect.objectContaining({ field, reason }));
  });

  it('never repeats the secret value in its message', () => {
    const [cause] = validateSecret({ metadata: { name: 's' }, data: { key: 'hunter2 is not base64' } }).causes;
    expect(cause?.message).not.toContain('hunter2');
  });
});
