import { bodyHash, canonicalJson } from './canonicalJson.js';

describe('the idempotency body hash is the SHA-256 of the canonical JSON (RFC 8785 key order)', () => {
  test('key order and whitespace do not matter; values do', () => {
    expect(canonicalJson({ b: 1, a: [3, { d: null, c: 'x' }] })).toBe('{"a":[3,{"c":"x","d":null}],"b":1}');
    expect(bodyHash(JSON.parse('{ "a": 1, "b": "two" }'))).toBe(bodyHash({ b: 'two', a: 1 }));
    expect(bodyHash({ a: 1 })).not.toBe(bodyHash({ a: 2 }));
  });
  test('numbers and strings serialise as ECMAScript does', () => {
    expect(canonicalJson({ n: 1e21, f: 0.1, s: 'é\n"' })).toBe('{"f":0.1,"n":1e+21,"s":"é\\n\\""}');
  });
});
