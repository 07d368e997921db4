// CIDR notation (RFC 4632, RFC 4291) for NetworkPolicy ipBlocks: parsed to a bit string so that
// containment can be checked for IPv4 and IPv6 alike.

export interface Cidr {
  family: 4 | 6;
  /** The address as a big integer. */
  address: bigint;
  prefix: number;
}

function ipv4(text: string): bigint | null {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^(0|[1-9]\d{0,2})$/.test(p) || Number(p) > 255)) return null;
  return parts.reduce((sum, p) => (sum << 8n) + BigInt(p), 0n);
}

function ipv6(text: string): bigint | null {
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const groups = (half: string): string[] => (half === '' ? [] : half.split(':'));
  const head = groups(halves[0] ?? '');
  const tail = halves.length === 2 ? groups(halves[1] ?? '') : [];
  const missing = 8 - head.length - tail.length;
  if ((halves.length === 1 && missing !== 0) || (halves.length === 2 && missing < 1)) return null;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (all.some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return null;
  return all.reduce((sum, g) => (sum << 16n) + BigInt(parseInt(g, 16)), 0n);
}

/** The CIDR, or null when the text is not one. */
export function parseCidr(text: string): Cidr | null {
  const match = /^([^/]+)\/(0|[1-9]\d{0,2})$/.exec(text);
  if (!match) return null;
  const [, ip = '', bits = ''] = match;
  const prefix = Number(bits);
  const v4 = ipv4(ip);
  if (v4 !== null) return prefix <= 32 ? { family: 4, address: v4, prefix } : null;
  const v6 = ip.includes(':') ? ipv6(ip) : null;
  return v6 !== null && prefix <= 128 ? { family: 6, address: v6, prefix } : null;
}

/** True when `inner` lies inside `outer` and is strictly smaller. */
export function isStrictSubset(inner: Cidr, outer: Cidr): boolean {
  if (inner.family !== outer.family || inner.prefix <= outer.prefix) return false;
  const width = BigInt(inner.family === 4 ? 32 : 128);
  const shift = width - BigInt(outer.prefix);
  return inner.address >> shift === outer.address >> shift;
}
