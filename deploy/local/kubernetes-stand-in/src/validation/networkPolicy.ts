// A NetworkPolicy as the API server validates it on create (networking.k8s.io/v1 reference:
// NetworkPolicySpec, NetworkPolicyPeer, NetworkPolicyPort, IPBlock). The JSON field of a rule's
// sources is `from` (client-node's model calls it `_from`; the server drops unknown fields, so a
// `_from` would silently allow every source).
import { invalid, isObject, listOf, notSupported, required, type FieldCause, type Json, type Validation } from './causes.js';
import { isStrictSubset, parseCidr } from './cidr.js';
import { checkLabelSelector, checkObjectMeta } from './meta.js';
import { isPortName, PORT_NAME_HELP } from './names.js';

const POLICY_TYPES = ['Ingress', 'Egress'] as const;
const PROTOCOLS = ['TCP', 'UDP', 'SCTP'] as const;

function checkPort(item: unknown, at: string, causes: FieldCause[]): void {
  const port: Json = isObject(item) ? item : {};
  if (port.protocol !== undefined && !(PROTOCOLS as readonly unknown[]).includes(port.protocol))
    causes.push(notSupported(`${at}.protocol`, port.protocol, PROTOCOLS));
  const { port: number, endPort } = port;
  if (typeof number === 'number') {
    if (!Number.isInteger(number) || number < 1 || number > 65535) causes.push(invalid(`${at}.port`, number, 'must be between 1 and 65535, inclusive'));
  } else if (typeof number === 'string') {
    if (!isPortName(number)) causes.push(invalid(`${at}.port`, number, PORT_NAME_HELP));
  } else if (number !== undefined) causes.push(invalid(`${at}.port`, number, 'must be a port number or a port name'));
  if (endPort === undefined) return;
  if (typeof number !== 'number') causes.push(invalid(`${at}.endPort`, endPort, 'may not be specified when `port` is not a number'));
  else if (typeof endPort !== 'number' || !Number.isInteger(endPort) || endPort < number || endPort > 65535) {
    causes.push(invalid(`${at}.endPort`, endPort, 'must be greater than or equal to `port` and at most 65535'));
  }
}

function checkIpBlock(block: Json, at: string, causes: FieldCause[]): void {
  const { cidr } = block;
  if (typeof cidr !== 'string' || cidr === '') {
    causes.push(required(`${at}.cidr`));
    return;
  }
  const outer = parseCidr(cidr);
  if (!outer) causes.push(invalid(`${at}.cidr`, cidr, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'));
  listOf(block.except, `${at}.except`, causes).forEach((item, index) => {
    const inner = typeof item === 'string' ? parseCidr(item) : null;
    if (!inner) causes.push(invalid(`${at}.except[${index}]`, item, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'));
    else if (outer && !isStrictSubset(inner, outer)) causes.push(invalid(`${at}.except[${index}]`, item, 'must be a strict subset of `cidr`'));
  });
}

function checkPeer(item: unknown, at: string, causes: FieldCause[]): void {
  const peer: Json = isObject(item) ? item : {};
  const selectors = ['podSelector', 'namespaceSelector'].filter((key) => peer[key] !== undefined && peer[key] !== null);
  const ipBlock = isObject(peer.ipBlock) ? peer.ipBlock : null;
  if (selectors.length === 0 && !ipBlock) causes.push(required(at));
  if (selectors.length > 0 && ipBlock)
    causes.push({ field: at, reason: 'FieldValueForbidden', message: 'Forbidden: may not specify both ipBlock and another peer' });
  for (const key of selectors) checkLabelSelector(peer[key], `${at}.${key}`, causes);
  if (ipBlock) checkIpBlock(ipBlock, `${at}.ipBlock`, causes);
}

function checkRules(list: unknown, field: string, peers: 'from' | 'to', causes: FieldCause[]): void {
  listOf(list, field, causes).forEach((item, index) => {
    const at = `${field}[${index}]`;
    const rule: Json = isObject(item) ? item : {};
    listOf(rule.ports, `${at}.ports`, causes).forEach((port, i) => checkPort(port, `${at}.ports[${i}]`, causes));
    listOf(rule[peers], `${at}.${peers}`, causes).forEach((peer, i) => checkPeer(peer, `${at}.${peers}[${i}]`, causes));
  });
}

/** The causes the API server would give for this NetworkPolicy on create (none: it is valid). */
export function validateNetworkPolicy(policy: unknown): Validation {
  const causes: FieldCause[] = [];
  const body: Json = isObject(policy) ? policy : {};
  const name = checkObjectMeta(body.metadata, causes);
  const spec: Json = isObject(body.spec) ? body.spec : {};
  checkLabelSelector(spec.podSelector, 'spec.podSelector', causes);
  const types = listOf(spec.policyTypes, 'spec.policyTypes', causes);
  if (types.length > 2) causes.push(invalid('spec.policyTypes', types, 'may not have more than 2 policyTypes'));
  types.forEach((type, index) => {
    if (!(POLICY_TYPES as readonly unknown[]).includes(type)) causes.push(notSupported(`spec.policyTypes[${index}]`, type, POLICY_TYPES));
  });
  checkRules(spec.ingress, 'spec.ingress', 'from', causes);
  checkRules(spec.egress, 'spec.egress', 'to', causes);
  return { name, causes };
}
