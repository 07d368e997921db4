/**
 * Declarations of environment variables. Each declaration knows its JSON Schema (validated by ajv),
 * how a raw string is pre-processed (comma lists, booleans), and the phrase used in the one-line
 * error when the value is wrong ("an integer between 1 and 65535").
 *
 * The phantom type parameter `T` is what the variable contributes to the typed configuration.
 */
export interface EnvVar<T> {
  readonly schema: Record<string, unknown>;
  /** Completes "NAME must be …" in error messages. */
  readonly expectation: string;
  readonly required: boolean;
  readonly default?: T | undefined;
  /** Secrets are never echoed back in error messages. */
  readonly secret: boolean;
  /** Turns the raw string into what the schema validates (split lists, normalise booleans). */
  readonly prepare?: (raw: string) => unknown;
  /** Phantom field for inference only; never set. */
  readonly __type?: T;
}

export type EnvSchema = Record<string, EnvVar<unknown>>;

/** The typed configuration an `EnvSchema` describes. */
export type ConfigOf<S extends EnvSchema> = { readonly [K in keyof S]: S[K] extends EnvVar<infer T> ? T : never };

interface Common {
  /** Marks the variable as a secret: its value never appears in error messages. */
  secret?: boolean;
}
interface Optional {
  optional: true;
}

type Options<T> = Common & ({ default: T; optional?: false } | { default?: undefined; optional?: false } | (Optional & { default?: undefined }));

function make<T>(
  base: { schema: Record<string, unknown>; expectation: string; prepare?: (raw: string) => unknown },
  options: Options<T> | undefined,
): EnvVar<T> {
  const hasDefault = options?.default !== undefined;
  const optional = options !== undefined && 'optional' in options && options.optional === true;
  return {
    schema: hasDefault ? { ...base.schema, default: options?.default } : base.schema,
    expectation: base.expectation,
    required: !hasDefault && !optional,
    default: options?.default,
    secret: options?.secret === true,
    ...(base.prepare ? { prepare: base.prepare } : {}),
  };
}

type NoOptions = Record<never, never>;

type Declared<T, O> = O extends Optional ? EnvVar<T | undefined> : EnvVar<T>;

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);

/** Builders for variable declarations: `env.integer({ min: 1, default: 10 })`, `env.url({ optional: true })`. */
export const env = {
  string<O extends Options<string> & { minLength?: number; pattern?: string; describe?: string } = NoOptions>(options?: O): Declared<string, O> {
    const schema: Record<string, unknown> = { type: 'string', minLength: options?.minLength ?? 1 };
    if (options?.pattern) schema.pattern = options.pattern;
    const expectation =
      options?.describe ?? (options?.minLength && options.minLength > 1 ? `a string of at least ${options.minLength} characters` : 'a non-empty string');
    return make<string>({ schema, expectation }, options) as Declared<string, O>;
  },

  integer<O extends Options<number> & { min?: number; max?: number } = NoOptions>(options?: O): Declared<number, O> {
    const schema: Record<string, unknown> = { type: 'integer' };
    if (options?.min !== undefined) schema.minimum = options.min;
    if (options?.max !== undefined) schema.maximum = options.max;
    const range =
      options?.min !== undefined && options.max !== undefined
        ? ` between ${options.min} and ${options.max}`
        : options?.min !== undefined
          ? ` of at least ${options.min}`
          : options?.max !== undefined
            ? ` of at most ${options.max}`
            : '';
    return make<number>({ schema, expectation: `an integer${range}`, prepare: (raw) => (/^-?\d+$/.test(raw) ? Number(raw) : raw) }, options) as Declared<
      number,
      O
    >;
  },

  /** A TCP port, 1 to 65535. */
  port<O extends Options<number> = NoOptions>(options?: O): Declared<number, O> {
    return env.integer({ ...(options as object), min: 1, max: 65535 }) as unknown as Declared<number, O>;
  },

  boolean<O extends Options<boolean> = NoOptions>(options?: O): Declared<boolean, O> {
    const prepare = (raw: string): unknown => {
      const lower = raw.trim().toLowerCase();
      if (TRUE.has(lower)) return true;
      if (FALSE.has(lower)) return false;
      return raw;
    };
    return make<boolean>({ schema: { type: 'boolean' }, expectation: 'a boolean (true/false, 1/0, yes/no)', prepare }, options) as Declared<boolean, O>;
  },

  /** One of a fixed set of strings. */
  oneOf<const V extends readonly string[], O extends Options<V[number]> = NoOptions>(values: V, options?: O): Declared<V[number], O> {
    return make<V[number]>({ schema: { type: 'string', enum: [...values] }, expectation: `one of ${values.join(', ')}` }, options) as Declared<V[number], O>;
  },

  /** An absolute URL; `protocols` restricts the scheme (without the colon), e.g. ['http', 'https']. */
  url<O extends Options<string> & { protocols?: readonly string[] } = NoOptions>(options?: O): Declared<string, O> {
    const protocols = options?.protocols;
    const pattern = protocols ? `^(${protocols.map((p) => p.replace(/[^a-z0-9+.-]/gi, '')).join('|')})://` : '^[a-zA-Z][a-zA-Z0-9+.-]*://';
    const expectation = protocols ? `a URL starting with ${protocols.map((p) => `${p}://`).join(' or ')}` : 'an absolute URL';
    return make<string>({ schema: { type: 'string', format: 'uri', pattern }, expectation }, options) as Declared<string, O>;
  },

  /** A comma-separated list; items are trimmed and empty items dropped. `item` constrains each item. */
  list<O extends Options<string[]> & { pattern?: string; describe?: string; minItems?: number } = NoOptions>(options?: O): Declared<string[], O> {
    const items: Record<string, unknown> = { type: 'string', minLength: 1 };
    if (options?.pattern) items.pattern = options.pattern;
    const prepare = (raw: string): unknown =>
      raw
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item.length > 0);
    return make<string[]>(
      { schema: { type: 'array', items, minItems: options?.minItems ?? 1 }, expectation: options?.describe ?? 'a comma-separated list', prepare },
      options,
    ) as Declared<string[], O>;
  },
};
