import { describe, expect, it } from '@jest/globals';
import { isStrictSubset, parseCidr } from './cidr.js';
import { validateNetworkPolicy } from './networkPolicy.js';

type Json = Record<string, unknown>;

function policy(spec: Json): Json {
  return { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'sandboxes' }, spec };
}

const VALID = policy({
  podSelector: {
    matchLabels: { 'app.kubernetes.io/name': 'ars-sandbox' },
    matchExpressions: [
      { key: 'tier', operator: 'In', values: ['web'] },
      { key: 'debug', operator: 'DoesNotExist' },
    ],
  },
  policyTypes: ['Ingress', 'Egress'],
  ingress: [{ from: [{ podSelector: { matchLabels: { app: 'sandboxes' } } }], ports: [{ protocol: 'TCP', port: 3000, endPort: 3999 }] }],
  egress: [
    {
      to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } }, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }],
      ports: [{ protocol: 'UDP', port: 53 }, { port: 'dns-tcp' }],
    },
    { to: [{ ipBlock: { cidr: '0.0.0.0/0', except: ['10.0.0.0/8', '192.168.0.0/16'] } }, { ipBlock: { cidr: '::/0', except: ['fc00::/7', '::1/128'] } }] },
  ],
});

describe('a NetworkPolicy is valid with label selectors, ports and ipBlocks as the networking.k8s.io/v1 reference describes them', () => {
  it('a policy of both directions has no causes', () => {
    expect(validateNetworkPolicy(VALID)).toEqual({ name: 'sandboxes', causes: [] });
  });

  it('an empty podSelector (every Pod of the namespace) and no rules is valid', () => {
    expect(validateNetworkPolicy(policy({ podSelector: {}, policyTypes: ['Ingress'] })).causes).toEqual([]);
  });
});

describe('a NetworkPolicy is refused for what the API server refuses', () => {
  it.each([
    ['an unknown policy type', policy({ policyTypes: ['Inbound'] }), 'spec.policyTypes[0]', 'FieldValueNotSupported'],
    ['three policy types', policy({ policyTypes: ['Ingress', 'Egress', 'Ingress'] }), 'spec.policyTypes', 'FieldValueInvalid'],
    [
      'an unknown selector operator',
      policy({ podSelector: { matchExpressions: [{ key: 'a', operator: 'Equals', values: ['b'] }] } }),
      'spec.podSelector.matchExpressions[0].operator',
      'FieldValueNotSupported',
    ],
    [
      'In without values',
      policy({ podSelector: { matchExpressions: [{ key: 'a', operator: 'In' }] } }),
      'spec.podSelector.matchExpressions[0].values',
      'FieldValueRequired',
    ],
    [
      'Exists with values',
      policy({ podSelector: { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['b'] }] } }),
      'spec.podSelector.matchExpressions[0].values',
      'FieldValueForbidden',
    ],
    [
      'a matchLabels value that is no label value',
      policy({ podSelector: { matchLabels: { app: 'a b' } } }),
      'spec.podSelector.matchLabels[app]',
      'FieldValueInvalid',
    ],
    ['a port above 65535', policy({ ingress: [{ ports: [{ port: 70000 }] }] }), 'spec.ingress[0].ports[0].port', 'FieldValueInvalid'],
    ['a named port that is no IANA name', policy({ ingress: [{ ports: [{ port: 'HTTP' }] }] }), 'spec.ingress[0].ports[0].port', 'FieldValueInvalid'],
    ['an endPort below its port', policy({ ingress: [{ ports: [{ port: 4000, endPort: 3000 }] }] }), 'spec.ingress[0].ports[0].endPort', 'FieldValueInvalid'],
    [
      'an endPort with a named port',
      policy({ ingress: [{ ports: [{ port: 'web', endPort: 3000 }] }] }),
      'spec.ingress[0].ports[0].endPort',
      'FieldValueInvalid',
    ],
    ['an unknown protocol', policy({ egress: [{ ports: [{ protocol: 'ICMP', port: 1 }] }] }), 'spec.egress[0].ports[0].protocol', 'FieldValueNotSupported'],
    ['an empty peer', policy({ ingress: [{ from: [{}] }] }), 'spec.ingress[0].from[0]', 'FieldValueRequired'],
    [
      'an ipBlock beside a selector',
      policy({ egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8' }, podSelector: {} }] }] }),
      'spec.egress[0].to[0]',
      'FieldValueForbidden',
    ],
    ['an ipBlock without a cidr', policy({ egress: [{ to: [{ ipBlock: {} }] }] }), 'spec.egress[0].to[0].ipBlock.cidr', 'FieldValueRequired'],
    ['a cidr that is none', policy({ egress: [{ to: [{ ipBlock: { cidr: '10.0.0.256/8' } }] }] }), 'spec.egress[0].to[0].ipBlock.cidr', 'FieldValueInvalid'],
    [
      'an except outside its cidr',
      policy({ egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['192.168.0.0/16'] } }] }] }),
      'spec.egress[0].to[0].ipBlock.except[0]',
      'FieldValueInvalid',
    ],
    [
      'an except as wide as its cidr',
      policy({ egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.0.0.0/8'] } }] }] }),
      'spec.egress[0].to[0].ipBlock.except[0]',
      'FieldValueInvalid',
    ],
    [
      'an IPv6 except inside an IPv4 cidr',
      policy({ egress: [{ to: [{ ipBlock: { cidr: '0.0.0.0/0', except: ['fc00::/7'] } }] }] }),
      'spec.egress[0].to[0].ipBlock.except[0]',
      'FieldValueInvalid',
    ],
  ])('%s', (_what, body, field, reason) => {
    expect(validateNetworkPolicy(body).causes).toContainEqual(expect.objectContaining({ field, reason }));
  });
});

describe('CIDRs: IPv4 and IPv6 (with "::"), and an except is a strict subset of its block', () => {
  it('parses both families and refuses what is not a CIDR', () => {
    expect(parseCidr('10.0.0.0/8')).toEqual({ family: 4, address: 10n << 24n, prefix: 8 });
    expect(parseCidr('fe80::/10')).toMatchObject({ family: 6, prefix: 10 });
    expect(parseCidr('::1/128')).toEqual({ family: 6, address: 1n, prefix: 128 });
    for (const text of ['10.0.0.0', '10.0.0/8', '10.0.0.0/33', '01.0.0.0/8', '1:2:3:4:5:6:7:8:9/64', '1::2::3/64', '::/129', 'fe80::g/10'])
      expect(parseCidr(text)).toBeNull();
  });

  it('is a strict subset only inside the block, of a longer prefix, in the same family', () => {
    const block = parseCidr('0.0.0.0/0')!;
    expect(isStrictSubset(parseCidr('127.0.0.0/8')!, block)).toBe(true);
    expect(isStrictSubset(parseCidr('0.0.0.0/0')!, block)).toBe(false);
    expect(isStrictSubset(parseCidr('172.16.0.0/12')!, parseCidr('172.0.0.0/8')!)).toBe(true);
    expect(isStrictSubset(parseCidr('173.16.0.0/12')!, parseCidr('172.0.0.0/8')!)).toBe(false);
    expect(isStrictSubset(parseCidr('fc00::/7')!, parseCidr('::/0')!)).toBe(true);
  });
});
