/** Exact secret values shorter than this would redact ordinary words. */
export const MIN_SECRET_LENGTH = 6;

/** Exact secret values, ready to redact: long enough, each once, longest first (a secret containing another goes whole). */
export class KnownSecrets {
  readonly values: readonly string[];

  constructor(values: Iterable<string | null | undefined>) {
    const kept = new Set<string>();
    for (const value of values) if (typeof value === 'string' && value.length >= MIN_SECRET_LENGTH) kept.add(value);
    this.values = [...kept].sort((a, b) => b.length - a.length);
  }

  /** These and `more`. */
  with(more: Iterable<string | null | undefined>): KnownSecrets {
    return new KnownSecrets([...this.values, ...more]);
  }

  get longest(): number {
    return this.values[0]?.length ?? 0;
  }
}

export const knownSecrets = (values: Iterable<string | null | undefined>): KnownSecrets => new KnownSecrets(values);

export const NO_KNOWN_SECRETS = new KnownSecrets([]);

/** The password of a URL (`mongodb://app:pw@host`, `redis://:pw@host`), if it has one. */
export function urlPassword(url: string | null | undefined): string[] {
  if (!url) return [];
  try {
    const password = decodeURIComponent(new URL(url).password);
    return password ? [password] : [];
  } catch {
    return [];
  }
}

/** A configuration variable: only whether it is marked secret matters here (`@ars/config`'s declarations). */
interface Declared {
  readonly secret: boolean;
}

/**
 * The secret values of a service's configuration: every variable declared `secret`, and the
 * password of every URL-valued one (MONGO_URL, REDIS_URL...).
 */
export function configSecrets(schema: Readonly<Record<string, Declared>>, config: Readonly<Record<string, unknown>>): string[] {
  const found: string[] = [];
  for (const [name, value] of Object.entries(config)) {
    if (typeof value !== 'string') continue;
    if (schema[name]?.secret) found.push(value);
    if (value.includes('://')) found.push(...urlPassword(value));
  }
  return found;
}
