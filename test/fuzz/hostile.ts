// Hostile values, each as the raw text it is sent as: a JSON value written by hand for a body field
// (so a lone surrogate stays `"\ud800"`, a number `1e400` as written and a nesting 10,000 deep costs
// no recursion here), a percent-encoded piece for a path or query, a header value Node can write.
// Named values first (the known ways in), then random ones of the same kinds.
import fc from 'fast-check';

/** A value and what it is, printed short in a counterexample (a 20 KB string shown as its start and length). */
export class Hostile {
  constructor(
    readonly label: string,
    readonly text: string,
    /** How a body goes on the wire: `latin1` writes each character as one byte (invalid UTF-8 on purpose). */
    readonly encoding: 'utf8' | 'latin1' = 'utf8',
  ) {}

  [fc.toStringMethod](): string {
    return `${this.label}: ${preview(this.text)}`;
  }
}

export function preview(text: string, max = 80): string {
  return text.length <= max ? JSON.stringify(text) : `${JSON.stringify(text.slice(0, max))}… (${text.length} chars)`;
}

const named = (pairs: readonly (readonly [string, string])[]): fc.Arbitrary<Hostile> =>
  fc.constantFrom(...pairs.map(([label, text]) => new Hostile(label, text)));

// ── JSON values (body fields, tool arguments) ─────────────────────────────────────────────────────

const WRONG_TYPES = [
  ['null', 'null'],
  ['true', 'true'],
  ['false', 'false'],
  ['zero', '0'],
  ['negative', '-1'],
  ['fraction', '1.5'],
  ['empty array', '[]'],
  ['empty object', '{}'],
  ['array of mixed', '[null,1,"a",{}]'],
  ['object', '{"a":1}'],
  ['the string "true"', '"true"'],
  ['the string "0"', '"0"'],
] as const;

const STRINGS = [
  ['empty string', '""'],
  ['spaces', '"   "'],
  ['NUL', '"\\u0000"'],
  ['NUL inside', '"main\\u0000--force"'],
  ['control characters', '"\\u0001\\u0007\\u0008\\u001b[31m\\u001f\\u007f"'],
  ['CR LF header injection', '"a\\r\\nSet-Cookie: x=1"'],
  ['bidirectional override', '"\\u202Egnp.exe"'],
  ['bidirectional isolates', '"\\u2066\\u2067\\u2068\\u2069\\u200F\\u200E"'],
  ['zero-width and BOM', '"\\u200B\\u200C\\u200D\\uFEFF"'],
  ['lone high surrogate', '"\\ud800"'],
  ['lone low surrogate', '"\\udfff"'],
  ['surrogates reversed', '"a\\udc00\\ud800b"'],
  ['noncharacters', '"\\uFFFE\\uFFFF"'],
  ['astral and combining', '"😀\\u0301\\u0301\\u0301𝕏"'],
  ['path traversal', '"../../../../etc/passwd"'],
  ['path traversal, backslashes', '"..\\\\..\\\\windows"'],
  ['encoded traversal', '"%2e%2e%2f%2e%2e%2f"'],
  ['encoded slash', '"a%2Fb"'],
  ['absolute path', '"/tmp"'],
  ['git option', '"--upload-pack=touch /tmp/x"'],
  ['ref syntax', '"refs/heads/../HEAD@{1}~^:?*["'],
  ['query operator name', '"$where"'],
  ['regex metacharacters', '".*(a+)+$[\\\\"'],
  ['template', '"{{7*7}}${7*7}<%= 7*7 %>"'],
  ['format', '"%s%s%n%x"'],
  ['SQL', `"' OR '1'='1' --"`],
  ['HTML', '"<script>alert(1)</script>"'],
  ['prototype names', '"__proto__"'],
] as const;

const OBJECTS = [
  ['query operator $gt', '{"$gt":""}'],
  ['query operator $ne', '{"$ne":null}'],
  ['query operator $regex', '{"$regex":".*"}'],
  ['query operator $where', '{"$where":"sleep(1000)"}'],
  ['__proto__ pollution', '{"__proto__":{"polluted":true,"isAdmin":true}}'],
  ['constructor.prototype pollution', '{"constructor":{"prototype":{"polluted":true}}}'],
  ['duplicate keys', '{"a":1,"a":{"$gt":""}}'],
] as const;

const NUMBERS = [
  ['largest double', '1e308'],
  ['negative largest double', '-1e308'],
  ['past the largest double', '1e309'],
  ['huge exponent', '1E+999999'],
  ['tiny exponent', '1e-999999'],
  ['negative zero', '-0'],
  ['2^53+1', '9007199254740993'],
  ['-(2^53+1)', '-9007199254740993'],
  ['30 digits', '123456789012345678901234567890'],
  ['smallest subnormal', '4.9e-324'],
  ['2^31', '2147483648'],
  ['-(2^31+1)', '-2147483649'],
  ['1.0', '1.0'],
  ['zero fraction exponent', '0.0e0'],
] as const;

const json = (value: unknown): string => JSON.stringify(value);

/** Arrays or objects nested `depth` deep, written out (no recursion here or in JSON.stringify). */
export function nested(kind: 'array' | 'object', depth: number): string {
  return kind === 'array' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

const deep = fc
  .tuple(fc.constantFrom<'array' | 'object'>('array', 'object'), fc.constantFrom(1_000, 2_500, 10_000))
  .map(([kind, depth]) => new Hostile(`${kind}s nested ${depth} deep`, nested(kind, depth)));

// Over 1 MB, the public body limit, once in a while; 10 and 100 K are accepted sizes for most fields.
/** Strings of 1 to `maxLength` UTF-16 code units from `min` to `max` (surrogate halves, control characters). */
function codeUnitsIn(min: number, max: number, maxLength: number): fc.Arbitrary<string> {
  return fc.string({ unit: fc.integer({ min, max }).map((code) => String.fromCharCode(code)), minLength: 1, maxLength });
}

const huge = fc.constantFrom(10_000, 100_000, 1_100_000).map((length) => new Hostile(`a string of ${length} characters`, json('x'.repeat(length))));

const loneSurrogates = codeUnitsIn(0xd800, 0xdfff, 4).map((text) => new Hostile('random surrogate halves', json(text)));

const controls = codeUnitsIn(0, 0x1f, 8).map((text) => new Hostile('random control characters', json(text)));

const unicode = fc.string({ unit: 'binary', maxLength: 48 }).map((text) => new Hostile('random unicode', json(text)));

const numbers = fc.oneof(
  fc.double().map((value) => new Hostile('random double', Number.isFinite(value) ? json(value) : value > 0 ? '1e400' : value < 0 ? '-1e400' : '0')),
  fc.bigInt({ min: -(2n ** 128n), max: 2n ** 128n }).map((value) => new Hostile('random big integer', value.toString())),
);

const jsonValues = fc.jsonValue({ maxDepth: 3 }).map((value) => new Hostile('random JSON', json(value)));

/** A hostile JSON value, as raw JSON text. */
export const hostileJson: fc.Arbitrary<Hostile> = fc.oneof(
  { arbitrary: named(WRONG_TYPES), weight: 3 },
  { arbitrary: named(STRINGS), weight: 5 },
  { arbitrary: named(OBJECTS), weight: 2 },
  { arbitrary: named(NUMBERS), weight: 3 },
  { arbitrary: deep, weight: 2 },
  { arbitrary: huge, weight: 1 },
  { arbitrary: loneSurrogates, weight: 1 },
  { arbitrary: controls, weight: 1 },
  { arbitrary: unicode, weight: 1 },
  { arbitrary: numbers, weight: 1 },
  { arbitrary: jsonValues, weight: 1 },
);

// ── Whole bodies ──────────────────────────────────────────────────────────────────────────────────

/** Bodies that replace the valid one whole; `base` is the valid body's JSON text. */
export function hostileBodies(base: string): fc.Arbitrary<Hostile> {
  const inner = base.slice(1, -1);
  const comma = inner === '' ? '' : ',';
  return fc.oneof(
    named([
      ['empty body', ''],
      ['not JSON', '{'],
      ['not JSON: single quotes', "{'a':1}"],
      ['not JSON: trailing comma', `{${inner}${comma}}`],
      ['not JSON: NaN', '{"a":NaN}'],
      ['JSON null', 'null'],
      ['JSON array', '[]'],
      ['JSON string', '"x"'],
      ['JSON number', '1e400'],
      ['a batch of valid bodies', `[${base},${base}]`],
      ['BOM then the valid body', `\uFEFF${base}`],
      ['the valid body then garbage', `${base}x`],
      ['the valid body twice', `${base}${base}`],
      ['top-level __proto__', `{${inner}${comma}"__proto__":{"polluted":true}}`],
      ['top-level constructor', `{${inner}${comma}"constructor":{"prototype":{"polluted":true}}}`],
      ['an unknown field', `{${inner}${comma}"fuzzUnknownField":"x"}`],
      ['a lone surrogate as a key', `{${inner}${comma}"\\ud800":1}`],
      ['a NUL key', `{${inner}${comma}"\\u0000":1}`],
      ['1,000 unknown fields', `{${inner}${comma}${Array.from({ length: 1_000 }, (_, i) => `"f${i}":${i}`).join(',')}}`],
      ['over 1 MB of whitespace around the valid body', `${' '.repeat(1_100_000)}${base}`],
    ]),
    fc.constant(new Hostile('invalid UTF-8 (latin1 bytes in a string)', `{${inner}${comma}"x":"\xff\xfe\xc0\xaf"}`, 'latin1')),
    deep.map((value) => new Hostile(`the whole body ${value.label}`, value.text)),
  );
}

// ── Path segments and query values (request-line text: percent-encoded where it must be) ─────────

/** Percent-encodes every code unit, lone surrogates too (as the 3 bytes WTF-8 gives them: never valid UTF-8). */
export function percentEncode(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i += 1) {
    const unit = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      out += encodeURIComponent(text.slice(i, i + 2));
      i += 1;
    } else if (unit >= 0xd800 && unit <= 0xdfff) {
      out += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)].map((byte) => `%${byte.toString(16).toUpperCase()}`).join('');
    } else {
      out += encodeURIComponent(text[i] ?? '');
    }
  }
  return out;
}

const SEGMENTS = [
  ['dot dot', '..'],
  ['dot', '.'],
  ['encoded dot dot', '%2e%2e'],
  ['encoded traversal', '%2e%2e%2f%2e%2e%2f%2e%2e%2finternal'],
  ['traversal with encoded slashes', '..%2F..%2F..%2Finternal%2Fusers'],
  ['traversal with backslashes', '..%5C..%5C'],
  ['encoded slash', 'a%2Fb'],
  ['only an encoded slash', '%2F'],
  ['NUL', '%00'],
  ['NUL inside', 'a%00b'],
  ['lone surrogate (WTF-8)', '%ED%A0%80'],
  ['invalid UTF-8', '%FF%FE'],
  ['overlong UTF-8 slash', '%C0%AF'],
  ['a lone percent', '%'],
  ['bad percent escape', '%zz'],
  ['bidirectional override', '%E2%80%AEtxt.exe'],
  ['CR LF', '%0D%0ASet-Cookie:%20x=1'],
  ['__proto__', '__proto__'],
  ['constructor', 'constructor'],
  ['query operator', '%24gt'],
  ['null', 'null'],
  ['undefined', 'undefined'],
  ['negative', '-1'],
  ['huge number', '1e308'],
  ['2^53+1', '9007199254740993'],
  ['space', '%20'],
  ['quote and backslash', '%22%5C'],
  ['SQL', "'%20OR%20'1'='1"],
  ['template', '%7B%7B7*7%7D%7D'],
  ['semicolon parameter', 'x;jsessionid=1'],
  ['encoded question mark', 'x%3Flimit%3D1'],
  ['a 201-character id', 'a'.repeat(201)],
] as const;

const longSegment = fc.integer({ min: 10_000, max: 20_000 }).map((length) => new Hostile(`a segment of ${length} characters`, 'a'.repeat(length)));
const randomSegment = fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }).map((text) => new Hostile('random unicode, encoded', percentEncode(text)));
const surrogateSegment = codeUnitsIn(0xd800, 0xdfff, 3).map((text) => new Hostile('random surrogate halves, encoded', percentEncode(text)));
const controlSegment = codeUnitsIn(0, 0x1f, 6).map((text) => new Hostile('random control characters, encoded', percentEncode(text)));

/** A path segment or query value as it goes on the request line. */
export const hostileSegment: fc.Arbitrary<Hostile> = fc.oneof(
  { arbitrary: named(SEGMENTS), weight: 6 },
  { arbitrary: longSegment, weight: 1 },
  { arbitrary: randomSegment, weight: 1 },
  { arbitrary: surrogateSegment, weight: 1 },
  { arbitrary: controlSegment, weight: 1 },
);

/** The ways one query parameter can be written: `name=v`, repeated, bracketed, bare. `v` is request-line text. */
export function queryForms(name: string): fc.Arbitrary<Hostile> {
  return fc.oneof(
    { arbitrary: hostileSegment.map((value) => new Hostile(`${name}=${value.label}`, `${name}=${value.text}`)), weight: 6 },
    named([
      [`${name} repeated`, `${name}=1&${name}=2`],
      [`${name} bracketed`, `${name}[]=1`],
      [`${name} with an operator`, `${name}[%24gt]=`],
      [`${name} bare`, name],
      [`${name} empty`, `${name}=`],
      [`${name} with an ampersand`, `${name}=a%26limit%3D1`],
    ]),
  );
}

// ── Header values (what Node can write: tab, printable ASCII and latin1) ────────────────────────

const HEADER_VALUES = [
  ['empty', ''],
  ['a space', ' '],
  ['201 characters', 'k'.repeat(201)],
  ['8,000 characters', 'k'.repeat(8_000)],
  ['latin1 bytes', '\xff\xfe\xfd'],
  ['U+202E as UTF-8 bytes', '\xe2\x80\xaetxt'],
  ['traversal', '../../../'],
  ['percent NUL', '%00'],
  ['a tab', '\t'],
  ['null', 'null'],
  ['JSON', '{"$gt":""}'],
] as const;

const headerPrintable = fc
  .string({ unit: 'binary-ascii', minLength: 1, maxLength: 40 })
  .map((text) => text.replace(/[^\t\x20-\x7e]/g, ''))
  .map((text) => new Hostile('random printable ASCII', text));

export const hostileHeaderValue: fc.Arbitrary<Hostile> = fc.oneof({ arbitrary: named(HEADER_VALUES), weight: 4 }, { arbitrary: headerPrintable, weight: 1 });

export const hostileAuthorization: fc.Arbitrary<Hostile> = named([
  ['no scheme', 'tok_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
  ['Bearer alone', 'Bearer'],
  ['Bearer and a space', 'Bearer '],
  ['a well-formed unknown PAT', `Bearer tok_${'A'.repeat(32)}`],
  ['a short PAT', 'Bearer tok_'],
  ['Basic', 'Basic dXNlcjpwYXNz'],
  ['a 10,000-character token', `Bearer ${'a'.repeat(10_000)}`],
  ['latin1 token', `Bearer tok_${'\xff'.repeat(32)}`],
  ['traversal token', 'Bearer tok_../../../../../../../../../..'],
  ['two schemes', `Bearer tok_${'A'.repeat(32)}, Bearer tok_${'B'.repeat(32)}`],
]);

export const hostileContentType: fc.Arbitrary<Hostile> = named([
  ['text/plain', 'text/plain'],
  ['UTF-16 JSON', 'application/json; charset=utf-16'],
  ['an unknown charset', 'application/json; charset=x-unknown'],
  ['form', 'application/x-www-form-urlencoded'],
  ['multipart', 'multipart/form-data; boundary=x'],
  ['empty', ''],
  ['a list', 'application/json, text/html'],
  ['+json', 'application/merge-patch+json'],
  ['garbage', ';;;/'],
]);

export const hostileAccept: fc.Arbitrary<Hostile> = named([
  ['an event stream', 'text/event-stream'],
  ['XML only', 'application/xml'],
  ['nothing acceptable', 'application/x-none;q=1, */*;q=0'],
  ['empty', ''],
]);

/** Request-target pieces that replace the route's own prefix or follow it. */
export const hostileSuffix: fc.Arbitrary<Hostile> = named([
  ['a trailing slash', '/'],
  ['a trailing /..', '/..'],
  ['a trailing /%2e%2e', '/%2e%2e'],
  ['a trailing encoded traversal', '/..%2F..%2F..%2Finternal'],
  ['a trailing NUL', '%00'],
  ['a double slash', '//'],
  ['a trailing encoded slash', '%2F'],
  ['a trailing dot', '/.'],
  ['a trailing semicolon', ';x=1'],
]);
