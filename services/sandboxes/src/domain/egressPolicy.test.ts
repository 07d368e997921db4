import {
  DEFAULT_EGRESS_PORTS,
  EGRESS_PRESETS,
  EgressAllowError,
  egressDecision,
  EMPTY_EGRESS_ALLOW,
  forbiddenAddress,
  normaliseHostName,
  parseEgressAllow,
  parseIpLiteral,
} from './egressPolicy.js';

const allowed = (text: string, host: string, port = 443) => egressDecision(parseEgressAllow(text), host, port).allowed;

/** The message parseEgressAllow throws for `text`, or null when it parses. */
function parseError(text: string): string | null {
  try {
    parseEgressAllow(text);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(EgressAllowError);
    return (error as Error).message;
  }
}

describe('the allowlist is entries separated by commas or whitespace; an empty one allows nothing', () => {
  test('commas, spaces, newlines and tabs all separate; blanks are skipped', () => {
    expect(parseEgressAllow(' a.example,b.example\n\tc.example ,, ').rules.map((rule) => rule.name)).toEqual(['a.example', 'b.example', 'c.example']);
  });
  test('an empty setting is an empty list, and an empty list refuses every name', () => {
    expect(parseEgressAllow('  ')).toEqual(EMPTY_EGRESS_ALLOW);
    expect(egressDecision(EMPTY_EGRESS_ALLOW, 'registry.npmjs.org', 443)).toEqual({
      allowed: false,
      reason: 'registry.npmjs.org is not on the egress allowlist',
      name: 'registry.npmjs.org',
    });
  });
});

describe('an exact entry allows that name only, case-insensitively and without its trailing dot', () => {
  test('the name itself, in any case, with or without a trailing dot, on either side', () => {
    expect(egressDecision(parseEgressAllow('Registry.NPMJS.org.'), 'REGISTRY.npmjs.ORG.', 443)).toEqual({ allowed: true, name: 'registry.npmjs.org' });
  });
  test('neither a name under it nor one merely ending in it', () => {
    expect(allowed('npmjs.org', 'registry.npmjs.org')).toBe(false);
    expect(allowed('npmjs.org', 'evilnpmjs.org')).toBe(false);
    expect(allowed('registry.npmjs.org', 'registry.npmjs.org.evil.example')).toBe(false);
  });
});

describe('a *.suffix entry allows names strictly under the suffix, on a label boundary', () => {
  test('one or more labels under the suffix match', () => {
    expect(allowed('*.githubusercontent.com', 'raw.githubusercontent.com')).toBe(true);
    expect(allowed('*.githubusercontent.com', 'a.b.githubusercontent.com')).toBe(true);
  });
  test('the bare suffix and a name that only ends in its letters do not', () => {
    expect(allowed('*.githubusercontent.com', 'githubusercontent.com')).toBe(false);
    expect(allowed('*.githubusercontent.com', 'evilgithubusercontent.com')).toBe(false);
    expect(allowed('*.githubusercontent.com', 'githubusercontent.com.evil.example')).toBe(false);
  });
});

describe('an entry without a port allows 443 and 80; name:port allows that port only; repeat an entry for more', () => {
  test('the default ports', () => {
    expect(DEFAULT_EGRESS_PORTS).toEqual([443, 80]);
    expect(allowed('a.example', 'a.example', 443)).toBe(true);
    expect(allowed('a.example', 'a.example', 80)).toBe(true);
    expect(egressDecision(parseEgressAllow('a.example'), 'a.example', 22)).toEqual({
      allowed: false,
      reason: 'port 22 is not allowed for a.example (allowed: 80, 443)',
      name: 'a.example',
    });
  });
  test('a listed port replaces the defaults; repeated entries add up to one rule', () => {
    expect(allowed('a.example:8443', 'a.example', 8443)).toBe(true);
    expect(allowed('a.example:8443', 'a.example', 443)).toBe(false);
    expect(parseEgressAllow('a.example:8443 a.example:9418').rules).toEqual([{ match: 'exact', name: 'a.example', ports: [8443, 9418] }]);
    expect(allowed('*.b.example:8443', 'a.b.example', 8443)).toBe(true);
  });
  test('a port is 1-65535 in plain decimal, one per entry', () => {
    for (const entry of ['a.example:0', 'a.example:65536', 'a.example:080', 'a.example:+1', 'a.example:', 'a.example:80|443']) {
      expect(parseError(entry)).toContain('is not a port');
    }
    expect(parseError('a.example:443:80')).toContain('characters other than');
  });
});

describe('presets name the registries’ own hosts', () => {
  test('@npm, @github and the others expand to their documented hosts', () => {
    expect(parseEgressAllow('@npm').rules.map((rule) => rule.name)).toEqual(['registry.npmjs.org', 'registry.yarnpkg.com']);
    expect(parseEgressAllow('@github').rules).toEqual([
      { match: 'exact', name: 'github.com', ports: [443, 80] },
      { match: 'subdomains', name: 'github.com', ports: [443, 80] },
      { match: 'subdomains', name: 'githubusercontent.com', ports: [443, 80] },
      { match: 'exact', name: 'codeload.github.com', ports: [443, 80] },
    ]);
    expect(Object.keys(EGRESS_PRESETS)).toEqual(['npm', 'pypi', 'github', 'gitlab', 'crates', 'go', 'rubygems', 'maven']);
    for (const preset of Object.keys(EGRESS_PRESETS)) expect(parseEgressAllow(`@${preset}`).rules.length).toBeGreaterThan(0);
  });
  test('presets and names mix; an unknown preset names the known ones', () => {
    expect(allowed('@pypi, internal.example', 'files.pythonhosted.org')).toBe(true);
    expect(parseError('@npmm')).toBe('egress allowlist entry "@npmm": no such preset (known: @npm, @pypi, @github, @gitlab, @crates, @go, @rubygems, @maven)');
    expect(parseError('@npm:443')).toContain('no such preset');
  });
});

describe('a malformed entry is refused with a message naming it', () => {
  test('an address in any spelling is refused: the list is of names', () => {
    for (const entry of ['127.0.0.1', '10.0.0.1:443', '2130706433', '0x7f.1', '[::1]', '[::1]:443', '::1', '93.184.215.14']) {
      expect(parseError(entry)).toBe(
        `egress allowlist entry "${entry}": an IP address: the allowlist is of host names (a request naming an address is always refused, so this entry could never match)`,
      );
    }
  });
  test('non-ASCII is refused with the punycode form to write instead', () => {
    expect(parseError('bücher.example')).toBe('egress allowlist entry "bücher.example": not ASCII: write its punycode form "xn--bcher-kva.example"');
    expect(parseError('*.bücher.example')).toContain('"*.xn--bcher-kva.example"');
    expect(parseEgressAllow('xn--bcher-kva.example').rules[0]?.name).toBe('xn--bcher-kva.example');
  });
  test('wildcards: only *. in front of a suffix of two labels or more', () => {
    expect(parseError('*')).toContain('allows every host');
    expect(parseError('*.com')).toContain('a whole top-level domain');
    expect(parseError('a.*.example')).toContain('only `*.` in front of a suffix');
    expect(parseError('*example.com')).toContain('only `*.` in front of a suffix');
    expect(parseError('**.example.com')).toContain('only `*.` in front of a suffix');
  });
  test('a URL, a user part, bad characters, empty labels and over-long names', () => {
    expect(parseError('https://github.com')).toContain('without a scheme or path');
    expect(parseError('github.com/org')).toContain('without a scheme or path');
    expect(parseError('me@github.com')).toContain('no user part');
    expect(parseError('git hub.com')).toBeNull(); // whitespace separates: two names
    expect(parseError('a..example')).toBe('egress allowlist entry "a..example": an empty label');
    expect(parseError('.example')).toContain('an empty label');
    expect(parseError('a$b.example')).toContain('characters other than');
    expect(parseError(`${'a'.repeat(64)}.example`)).toContain('longer than 63');
    expect(parseError(`${'a.'.repeat(127)}example`)).toContain('longer than 253');
  });
});

describe('a requested name is normalised, and refused when it is no host name', () => {
  test('lower case, one trailing dot removed; underscores allowed', () => {
    expect(normaliseHostName('A_B.Example.')).toEqual({ name: 'a_b.example' });
  });
  test('empty labels, long labels and names, other characters, and a last label that is a number are refused', () => {
    const refused = (host: string) => egressDecision(parseEgressAllow('*.example.com'), host, 443);
    expect(refused('')).toEqual({ allowed: false, reason: 'not a host name: empty' });
    expect(refused('a..example.com')).toEqual({ allowed: false, reason: 'not a host name: an empty label' });
    expect(refused('a.example.com..')).toEqual({ allowed: false, reason: 'not a host name: an empty label' });
    expect(refused(`${'a'.repeat(64)}.example.com`).allowed).toBe(false);
    expect(refused(`${'a.'.repeat(124)}example.com`)).toEqual({ allowed: false, reason: 'not a host name: longer than 253 characters' });
    expect(refused('a b.example.com').allowed).toBe(false);
    expect(refused('ä.example.com').allowed).toBe(false);
    expect(refused('a.example.com\r\nx').allowed).toBe(false);
    expect(normaliseHostName('a.1')).toEqual({ problem: 'it ends in a number, which resolvers read as an address' });
    expect(normaliseHostName('a.0x1f')).toEqual({ problem: 'it ends in a number, which resolvers read as an address' });
    expect(normaliseHostName('1.2.3.4.5')).toEqual({ problem: 'it ends in a number, which resolvers read as an address' });
  });
});

describe('an address is recognised in every spelling a resolver accepts, and normalised', () => {
  test('dotted decimal, one number, octal, hex and the 2- and 3-part forms', () => {
    expect(parseIpLiteral('127.0.0.1')).toBe('127.0.0.1');
    expect(parseIpLiteral('2130706433')).toBe('127.0.0.1');
    expect(parseIpLiteral('0x7f000001')).toBe('127.0.0.1');
    expect(parseIpLiteral('0X7F.1')).toBe('127.0.0.1');
    expect(parseIpLiteral('0177.0.0.1')).toBe('127.0.0.1');
    expect(parseIpLiteral('127.1')).toBe('127.0.0.1');
    expect(parseIpLiteral('10.1.257')).toBe('10.1.1.1');
    expect(parseIpLiteral('169.254.43518')).toBe('169.254.169.254');
    expect(parseIpLiteral('0')).toBe('0.0.0.0');
    expect(parseIpLiteral('0x')).toBe('0.0.0.0');
  });
  test('IPv6, bracketed or not, compressed and lower-cased, IPv4-mapped written dotted, a zone dropped', () => {
    expect(parseIpLiteral('[::1]')).toBe('::1');
    expect(parseIpLiteral('[0:0:0:0:0:0:0:1]')).toBe('::1');
    expect(parseIpLiteral('::FFFF:7F00:1')).toBe('::ffff:127.0.0.1');
    expect(parseIpLiteral('[fe80::1%eth0]')).toBe('fe80::1');
  });
  test('names, out-of-range numbers and malformed forms are not addresses', () => {
    for (const host of ['example.com', '256.0.0.1', '1.2.3.4.5', '4294967296', '08', '0x1g', '1..1', '[127.0.0.1]', '[::1', '::g', '']) {
      expect(parseIpLiteral(host)).toBeNull();
    }
  });
  test('a request naming an address is refused, whatever the allowlist, with the address normalised', () => {
    const allowAll = parseEgressAllow('@npm *.example.com');
    for (const [host, address] of [
      ['2130706433', '127.0.0.1'],
      ['0x7f000001', '127.0.0.1'],
      ['0177.0.0.1', '127.0.0.1'],
      ['127.0.0.1.', '127.0.0.1'],
      ['[::1]', '::1'],
      ['93.184.215.14', '93.184.215.14'],
    ]) {
      expect(egressDecision(allowAll, host ?? '', 443)).toEqual({ allowed: false, reason: `${address} is an address, not a name on the allowlist`, address });
    }
  });
});

describe('addresses inside this machine or its networks are forbidden whatever the allowlist', () => {
  test.each([
    ['127.0.0.1', 'loopback (127.0.0.0/8)'],
    ['127.255.0.9', 'loopback (127.0.0.0/8)'],
    ['0.0.0.0', '"this network" (0.0.0.0/8)'],
    ['10.1.2.3', 'a private network (10.0.0.0/8)'],
    ['172.16.0.1', 'a private network (172.16.0.0/12)'],
    ['172.31.255.255', 'a private network (172.16.0.0/12)'],
    ['192.168.1.1', 'a private network (192.168.0.0/16)'],
    ['100.64.0.1', 'shared address space (100.64.0.0/10, carrier-grade NAT)'],
    ['169.254.169.254', 'link-local (169.254.0.0/16, where cloud metadata services answer)'],
    ['224.0.0.1', 'multicast (224.0.0.0/4)'],
    ['240.0.0.1', 'reserved (240.0.0.0/4, with the broadcast address)'],
    ['255.255.255.255', 'reserved (240.0.0.0/4, with the broadcast address)'],
    ['::1', 'loopback (::1)'],
    ['::', 'the unspecified address (::)'],
    ['::ffff:127.0.0.1', 'IPv4-mapped (::ffff:0:0/96)'],
    ['::ffff:93.184.215.14', 'IPv4-mapped (::ffff:0:0/96)'],
    ['::127.0.0.1', 'IPv4-compatible (::/96)'],
    ['64:ff9b::7f00:1', 'NAT64 (64:ff9b::/96), which embeds an IPv4 address'],
    ['64:ff9b:1::a00:1', 'local NAT64 (64:ff9b:1::/48), which embeds an IPv4 address'],
    ['2002:7f00:1::1', '6to4 (2002::/16), which embeds an IPv4 address'],
    ['2001:0:4136:e378::1', 'Teredo (2001::/32), which embeds an IPv4 address'],
    ['fd00:ec2::254', 'unique local (fc00::/7)'],
    ['fe80::1', 'link-local (fe80::/10)'],
    ['fe80::1%eth0', 'link-local (fe80::/10)'],
    ['fec0::1', 'site-local (fec0::/10)'],
    ['ff02::1', 'multicast (ff00::/8)'],
  ])('%s is forbidden: %s', (address, reason) => {
    expect(forbiddenAddress(address, [])).toBe(reason);
  });
  test("this machine's own addresses are forbidden, compared in one spelling", () => {
    expect(forbiddenAddress('198.51.100.1', ['198.51.100.1'])).toBe("this machine's own address");
    expect(forbiddenAddress('2001:db8::1', ['2001:DB8:0::1'])).toBe("this machine's own address");
  });
  test('public addresses, the documentation ranges (where the tests’ outside host lives) and outside IPv6 pass', () => {
    for (const address of [
      '93.184.215.14',
      '8.8.8.8',
      '172.32.0.1',
      '100.128.0.1',
      '192.0.2.10',
      '198.51.100.2',
      '203.0.113.7',
      '2606:4700::1111',
      '2001:db8::1',
    ]) {
      expect(forbiddenAddress(address, ['198.51.100.1'])).toBeNull();
    }
  });
  test('anything that is not an address is forbidden', () => {
    expect(forbiddenAddress('localhost', [])).toBe('not an IP address');
    expect(forbiddenAddress('2130706433', [])).toBe('not an IP address');
  });
});
