// Which outside hosts a sandbox may reach through its egress proxy (src/egress), and which addresses
// it may never reach whatever the allowlist says. No I/O: the proxy resolves names and passes the
// answers here, so the rule that decides is the one the tests read.
//
// The allowlist is of host names only. A request naming an address (in any spelling a resolver
// accepts: `2130706433`, `0x7f.1`, `0177.0.0.1`, `[::1]`) is refused, and every address a name
// resolves to is checked against the forbidden ranges (loopback, private, link-local, metadata, the
// machine's own addresses…): an allowed name that resolves inward is still refused.
import { BlockList, isIP, isIPv6, SocketAddress } from 'node:net';
import { domainToASCII } from 'node:url';

/** One allowed pattern: a name, or every name strictly under a suffix; on these ports. */
export interface EgressAllowRule {
  /** `exact`: `name` itself; `subdomains`: any name ending in `.<name>` (never `name` itself). */
  readonly match: 'exact' | 'subdomains';
  /** Lower case, ASCII, no trailing dot. */
  readonly name: string;
  readonly ports: readonly number[];
}

/** A parsed allowlist (parseEgressAllow). Empty: nothing is allowed. */
export interface EgressAllowList {
  readonly rules: readonly EgressAllowRule[];
}

/** `name`: the host as a name in its one spelling (when it is one); `address`: an address the host spelled. */
export type EgressDecision = { allowed: true; name: string } | { allowed: false; reason: string; name?: string; address?: string };

/** The ports of an entry that names none: HTTPS, and HTTP for the package indexes still served on it. */
export const DEFAULT_EGRESS_PORTS: readonly number[] = [443, 80];

/**
 * Named sets of hosts (`@npm`), kept small: the registries' own hosts, not their mirrors or CDNs
 * beyond what a plain install fetches. Anything else is written out in the setting.
 */
export const EGRESS_PRESETS: Readonly<Record<string, readonly string[]>> = {
  npm: ['registry.npmjs.org', 'registry.yarnpkg.com'],
  pypi: ['pypi.org', 'files.pythonhosted.org'],
  github: ['github.com', '*.github.com', '*.githubusercontent.com', 'codeload.github.com'],
  gitlab: ['gitlab.com'],
  crates: ['crates.io', 'static.crates.io', 'index.crates.io'],
  go: ['proxy.golang.org', 'sum.golang.org'],
  rubygems: ['rubygems.org', 'index.rubygems.org'],
  maven: ['repo.maven.apache.org', 'repo1.maven.org'],
};

export const EMPTY_EGRESS_ALLOW: EgressAllowList = { rules: [] };

/** A malformed allowlist entry; the message names it (config validation prints it at start-up). */
export class EgressAllowError extends Error {
  constructor(
    readonly entry: string,
    detail: string,
  ) {
    super(`egress allowlist entry "${entry}": ${detail}`);
    this.name = 'EgressAllowError';
  }
}

/**
 * Parses a setting such as `SANDBOX_EGRESS_ALLOW`: entries separated by commas and/or whitespace,
 * each `name`, `*.suffix` or `@preset`, a name optionally with one `:port` (repeat the entry for more
 * ports; without one, 443 and 80). Names are matched case-insensitively and without a trailing dot.
 * Non-ASCII names are refused (the error gives the punycode form to write instead), as are addresses,
 * `*` alone and a wildcard over a whole top-level domain. Throws EgressAllowError.
 */
export function parseEgressAllow(text: string): EgressAllowList {
  const rules: EgressAllowRule[] = [];
  for (const entry of text.split(/[\s,]+/).filter((part) => part !== '')) {
    if (entry.startsWith('@')) {
      const hosts = Object.hasOwn(EGRESS_PRESETS, entry.slice(1).toLowerCase()) ? EGRESS_PRESETS[entry.slice(1).toLowerCase()] : undefined;
      if (!hosts)
        throw new EgressAllowError(
          entry,
          `no such preset (known: ${Object.keys(EGRESS_PRESETS)
            .map((name) => `@${name}`)
            .join(', ')})`,
        );
      for (const host of hosts) rules.push(parseEntry(host));
      continue;
    }
    rules.push(parseEntry(entry));
  }
  return { rules: mergeRules(rules) };
}

function parseEntry(entry: string): EgressAllowRule {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(entry) || entry.includes('/')) throw new EgressAllowError(entry, 'write the host name only, without a scheme or path');
  if (entry.includes('@')) throw new EgressAllowError(entry, 'a preset is written alone (`@npm`), a name has no user part');
  // `[v6]`, `[v6]:port` and a bare v6 are addresses: said so before splitting off a port misreads them.
  if (entry.startsWith('[') || parseIpLiteral(entry) !== null) throw addressEntry(entry);
  const colon = entry.lastIndexOf(':');
  const host = colon < 0 ? entry : entry.slice(0, colon);
  const ports = colon < 0 ? DEFAULT_EGRESS_PORTS : [parsePortOrThrow(entry, entry.slice(colon + 1))];
  if (host === '*') throw new EgressAllowError(entry, 'an allowlist that allows every host is not an allowlist');
  const wildcard = host.startsWith('*.');
  const nameText = wildcard ? host.slice(2) : host;
  if (nameText.includes('*')) throw new EgressAllowError(entry, 'a wildcard is only `*.` in front of a suffix (`*.example.com`)');
  if (/[^\x20-\x7e]/.test(nameText)) {
    const ascii = domainToASCII(nameText);
    throw new EgressAllowError(
      entry,
      ascii ? `not ASCII: write its punycode form "${wildcard ? '*.' : ''}${ascii}"` : 'not ASCII, and not a valid international name',
    );
  }
  if (parseIpLiteral(stripTrailingDot(nameText)) !== null) throw addressEntry(entry);
  const name = normaliseHostName(nameText);
  if ('problem' in name) throw new EgressAllowError(entry, name.problem);
  if (wildcard && !name.name.includes('.')) throw new EgressAllowError(entry, `"*.${name.name}" would allow a whole top-level domain`);
  return { match: wildcard ? 'subdomains' : 'exact', name: name.name, ports };
}

function addressEntry(entry: string): EgressAllowError {
  return new EgressAllowError(
    entry,
    'an IP address: the allowlist is of host names (a request naming an address is always refused, so this entry could never match)',
  );
}

function parsePortOrThrow(entry: string, text: string): number {
  const port = parsePort(text);
  if (port === null) throw new EgressAllowError(entry, `"${text}" is not a port (1-65535, one per entry: repeat the entry for more)`);
  return port;
}

/** A decimal port 1-65535 without a sign or leading zeros, or null. */
export function parsePort(text: string): number | null {
  if (!/^[1-9][0-9]{0,4}$/.test(text)) return null;
  const port = Number(text);
  return port <= 65_535 ? port : null;
}

/** The same name and match from several entries (a repeated name with other ports) become one rule. */
function mergeRules(rules: EgressAllowRule[]): EgressAllowRule[] {
  const merged = new Map<string, { match: EgressAllowRule['match']; name: string; ports: Set<number> }>();
  for (const rule of rules) {
    const key = `${rule.match} ${rule.name}`;
    const existing = merged.get(key) ?? { match: rule.match, name: rule.name, ports: new Set<number>() };
    for (const port of rule.ports) existing.ports.add(port);
    merged.set(key, existing);
  }
  return [...merged.values()].map((rule) => ({ match: rule.match, name: rule.name, ports: [...rule.ports] }));
}

/**
 * Whether a request for `host`:`port` may go out, by name alone (the proxy then checks the addresses
 * the name resolves to with forbiddenAddress). `host` is as the request spelled it (`[::1]` bracketed).
 * An address in any spelling is refused, its normalised form given as `address`.
 */
export function egressDecision(allow: EgressAllowList, host: string, port: number): EgressDecision {
  const address = parseIpLiteral(stripTrailingDot(host));
  if (address !== null) return { allowed: false, reason: `${address} is an address, not a name on the allowlist`, address };
  const name = normaliseHostName(host);
  if ('problem' in name) return { allowed: false, reason: `not a host name: ${name.problem}` };
  const matching = allow.rules.filter((rule) => (rule.match === 'exact' ? name.name === rule.name : name.name.endsWith(`.${rule.name}`)));
  if (matching.length === 0) return { allowed: false, reason: `${name.name} is not on the egress allowlist`, name: name.name };
  if (!matching.some((rule) => rule.ports.includes(port))) {
    const ports = [...new Set(matching.flatMap((rule) => rule.ports))].sort((a, b) => a - b);
    return { allowed: false, reason: `port ${port} is not allowed for ${name.name} (allowed: ${ports.join(', ')})`, name: name.name };
  }
  return { allowed: true, name: name.name };
}

/**
 * A host name in its one spelling (lower case, no trailing dot), or the problem with it: empty
 * labels, a label over 63 or a name over 253 characters, characters outside letters, digits, `-`
 * and `_`, or a last label that is a number (resolvers read `a.0x10` and `a.1` as addresses).
 */
export function normaliseHostName(host: string): { name: string } | { problem: string } {
  const name = stripTrailingDot(host.toLowerCase());
  if (name === '') return { problem: 'empty' };
  if (name.length > 253) return { problem: 'longer than 253 characters' };
  if (/[^a-z0-9._-]/.test(name)) return { problem: 'characters other than letters, digits, "-", "_" and "."' };
  const labels = name.split('.');
  if (labels.some((label) => label === '')) return { problem: 'an empty label' };
  if (labels.some((label) => label.length > 63)) return { problem: 'a label longer than 63 characters' };
  if (/^(0x[0-9a-f]*|[0-9]+)$/.test(labels[labels.length - 1] ?? '')) return { problem: 'it ends in a number, which resolvers read as an address' };
  return { name };
}

function stripTrailingDot(host: string): string {
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

/**
 * The normalised address a host spells, or null when it is not an address: IPv4 in every form
 * inet_aton (and so getaddrinfo) accepts — one to four parts, each decimal, octal (`0177`) or hex
 * (`0x7f`), the last filling the remaining bytes (`127.1`, `2130706433`) — and IPv6, bracketed or
 * not (a zone `%eth0` is dropped). IPv6 comes out compressed, lower case, IPv4-mapped as `::ffff:a.b.c.d`.
 */
export function parseIpLiteral(host: string): string | null {
  const inner = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (inner !== host || inner.includes(':')) return isIPv6(inner) ? normaliseIpv6(inner) : null;
  return parseIpv4(inner);
}

function parseIpv4(text: string): string | null {
  const parts = text.split('.');
  if (parts.length > 4) return null;
  const values: number[] = [];
  for (const part of parts) {
    const value = parseIpv4Part(part);
    if (value === null) return null;
    values.push(value);
  }
  const last = values.pop() ?? 0;
  if (values.some((value) => value > 255) || last >= 256 ** (5 - parts.length)) return null;
  const number = values.reduce((sum, value, index) => sum + value * 256 ** (3 - index), last);
  return [24, 16, 8, 0].map((shift) => Math.floor(number / 2 ** shift) % 256).join('.');
}

function parseIpv4Part(part: string): number | null {
  // `0x` alone is 0 to the URL parser: reading more spellings as addresses only refuses more.
  if (/^0x[0-9a-f]*$/i.test(part)) return part.length === 2 ? 0 : boundedParse(part.slice(2), 16);
  if (/^0[0-7]+$/.test(part)) return boundedParse(part.slice(1), 8);
  if (/^(0|[1-9][0-9]*)$/.test(part)) return boundedParse(part, 10);
  return null;
}

/** Digits past 2^32 are no address (and would lose precision). */
function boundedParse(digits: string, radix: number): number | null {
  const value = parseInt(digits, radix);
  return value < 2 ** 32 ? value : null;
}

function normaliseIpv6(address: string): string {
  return new SocketAddress({ address: address.split('%')[0] ?? address, family: 'ipv6' }).address;
}

/** One forbidden range: every address in it is refused with this reason. */
interface ForbiddenRange {
  readonly network: string;
  readonly prefix: number;
  readonly reason: string;
}

const FORBIDDEN_IPV4: readonly ForbiddenRange[] = [
  { network: '0.0.0.0', prefix: 8, reason: '"this network" (0.0.0.0/8)' },
  { network: '127.0.0.0', prefix: 8, reason: 'loopback (127.0.0.0/8)' },
  { network: '10.0.0.0', prefix: 8, reason: 'a private network (10.0.0.0/8)' },
  { network: '172.16.0.0', prefix: 12, reason: 'a private network (172.16.0.0/12)' },
  { network: '192.168.0.0', prefix: 16, reason: 'a private network (192.168.0.0/16)' },
  { network: '100.64.0.0', prefix: 10, reason: 'shared address space (100.64.0.0/10, carrier-grade NAT)' },
  { network: '169.254.0.0', prefix: 16, reason: 'link-local (169.254.0.0/16, where cloud metadata services answer)' },
  { network: '224.0.0.0', prefix: 4, reason: 'multicast (224.0.0.0/4)' },
  { network: '240.0.0.0', prefix: 4, reason: 'reserved (240.0.0.0/4, with the broadcast address)' },
];

// Checked in order: `::` and `::1` before the IPv4-compatible ::/96 that holds them.
const FORBIDDEN_IPV6: readonly ForbiddenRange[] = [
  { network: '::', prefix: 128, reason: 'the unspecified address (::)' },
  { network: '::1', prefix: 128, reason: 'loopback (::1)' },
  { network: '::ffff:0:0', prefix: 96, reason: 'IPv4-mapped (::ffff:0:0/96)' },
  { network: '::', prefix: 96, reason: 'IPv4-compatible (::/96)' },
  { network: '64:ff9b::', prefix: 96, reason: 'NAT64 (64:ff9b::/96), which embeds an IPv4 address' },
  { network: '64:ff9b:1::', prefix: 48, reason: 'local NAT64 (64:ff9b:1::/48), which embeds an IPv4 address' },
  { network: '2002::', prefix: 16, reason: '6to4 (2002::/16), which embeds an IPv4 address' },
  { network: '2001::', prefix: 32, reason: 'Teredo (2001::/32), which embeds an IPv4 address' },
  { network: 'fc00::', prefix: 7, reason: 'unique local (fc00::/7)' },
  { network: 'fe80::', prefix: 10, reason: 'link-local (fe80::/10)' },
  { network: 'fec0::', prefix: 10, reason: 'site-local (fec0::/10)' },
  { network: 'ff00::', prefix: 8, reason: 'multicast (ff00::/8)' },
];

// One BlockList per range, each checked only with addresses of its family: a BlockList matches an
// IPv4 address against IPv6 rules through ::ffff:0:0/96, which would make every IPv4 address "mapped".
const IPV4_RULES = FORBIDDEN_IPV4.map((range) => ({ reason: range.reason, list: blockListOf(range, 'ipv4') }));
const IPV6_RULES = FORBIDDEN_IPV6.map((range) => ({ reason: range.reason, list: blockListOf(range, 'ipv6') }));

function blockListOf(range: ForbiddenRange, family: 'ipv4' | 'ipv6'): BlockList {
  const list = new BlockList();
  list.addSubnet(range.network, range.prefix, family);
  return list;
}

/**
 * Why an address (as a name resolved to it) must never be connected to, whatever the allowlist, or
 * null: loopback, "this network", private (RFC 1918), shared (100.64/10), link-local (cloud
 * metadata), multicast, reserved and broadcast; IPv6 loopback, unspecified, unique-local,
 * link-local, site-local and multicast, and every form that embeds an IPv4 address (mapped,
 * compatible, NAT64, 6to4, Teredo) since the embedded address is not checked; and any of
 * `hostAddresses` (this machine's own, which the ranges above may not cover). The documentation
 * ranges (TEST-NET 192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24) are not forbidden: the tests'
 * stand-in outside host lives there.
 */
export function forbiddenAddress(address: string, hostAddresses: readonly string[]): string | null {
  const normalised = normaliseResolved(address);
  if (normalised === null) return 'not an IP address';
  const rules = isIP(normalised) === 4 ? IPV4_RULES : IPV6_RULES;
  const family = isIP(normalised) === 4 ? 'ipv4' : 'ipv6';
  for (const rule of rules) if (rule.list.check(normalised, family)) return rule.reason;
  if (hostAddresses.some((own) => normaliseResolved(own) === normalised)) return "this machine's own address";
  return null;
}

/** A resolver's answer in the one spelling forbiddenAddress compares (IPv4 dotted, IPv6 compressed). */
function normaliseResolved(address: string): string | null {
  const family = isIP(address.split('%')[0] ?? address);
  if (family === 4) return address;
  if (family === 6) return normaliseIpv6(address);
  return null;
}
