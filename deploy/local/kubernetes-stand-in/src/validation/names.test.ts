import { describe, expect, it } from '@jest/globals';
import { isConfigKey, isDnsLabel, isDnsSubdomain, isEnvVarName, isLabelKey, isLabelValue, isPortName } from './names.js';
import { parseQuantity } from './quantity.js';

describe('names: a DNS-1123 label is at most 63 lower case alphanumerics or "-", alphanumeric at both ends', () => {
  it.each(['a', 'sandbox', 'k8s-0a1b', '0', 'a'.repeat(63)])('%s is one', (name) => expect(isDnsLabel(name)).toBe(true));
  it.each(['', 'A', 'my_pod', '-a', 'a-', 'a.b', 'a'.repeat(64)])('%s is not', (name) => expect(isDnsLabel(name)).toBe(false));
});

describe('names: a DNS-1123 subdomain is labels joined by "." and at most 253 characters', () => {
  it.each(['a.b', 'my-pod.example', 'x', `${'a'.repeat(63)}.${'b'.repeat(63)}`])('%s is one', (name) => expect(isDnsSubdomain(name)).toBe(true));
  it.each(['', '.a', 'a.', 'a..b', 'A.b', 'a_b', 'a'.repeat(254)])('%s is not', (name) => expect(isDnsSubdomain(name)).toBe(false));
});

describe('labels: a key is an optional DNS-subdomain prefix and "/", then a name of at most 63; a value is empty or such a name', () => {
  it.each(['app', 'app.kubernetes.io/name', 'example.com/My_Name.1', 'a'.repeat(63)])('key %s is valid', (key) => expect(isLabelKey(key)).toBe(true));
  it.each(['', '/name', 'Example.com/name', 'a/b/c', '_app', 'app-', 'a'.repeat(64), 'example.com/'])('key %s is not', (key) =>
    expect(isLabelKey(key)).toBe(false),
  );
  it.each(['', 'ars-sandbox', 'v1.2_x', 'A'.repeat(63)])('value %s is valid', (value) => expect(isLabelValue(value)).toBe(true));
  it.each(['-x', 'x.', 'a b', 'x/y', 'a'.repeat(64)])('value %s is not', (value) => expect(isLabelValue(value)).toBe(false));
});

describe('Secret keys are alphanumerics, "-", "_" and "."; port names are IANA service names; env names do not start with a digit', () => {
  it('config keys', () => {
    expect(['clone-url', '.dockerconfigjson', 'tls.crt', 'A_b'].every(isConfigKey)).toBe(true);
    expect(['', '.', '..', '..x', 'a/b', 'a b', 'k'.repeat(254)].some(isConfigKey)).toBe(false);
  });
  it('port names', () => {
    expect(['http', 'web-1', 'a'].every(isPortName)).toBe(true);
    expect(['', '80', 'Http', '-web', 'web-', 'we--b', 'a'.repeat(16)].some(isPortName)).toBe(false);
  });
  it('environment variable names', () => {
    expect(['HOME', 'CLONE_URL', 'a.b-c', '_x'].every(isEnvVarName)).toBe(true);
    expect(['', '1ABC', 'A=B', 'A B'].some(isEnvVarName)).toBe(false);
  });
});

describe('quantities follow the documented grammar: signed number, then a binary-SI, decimal-SI or exponent suffix', () => {
  it.each([
    ['1', 1],
    ['250m', 0.25],
    ['1.5', 1.5],
    ['.5', 0.5],
    ['2.', 2],
    ['1k', 1000],
    ['1Ki', 1024],
    ['256Mi', 256 * 2 ** 20],
    ['1Gi', 2 ** 30],
    ['1e3', 1000],
    ['1E-3', 0.001],
    ['+2', 2],
    ['-1', -1],
  ])('%s is %d', (text, value) => expect(parseQuantity(text)).toBeCloseTo(value));
  it.each(['', 'lots', '1KB', '1ki', '1K', 'Mi', '1 Gi', '1.2.3', '1Gi1', '1u', '--1'])('%s is not a quantity', (text) =>
    expect(parseQuantity(text)).toBeNull(),
  );
});
