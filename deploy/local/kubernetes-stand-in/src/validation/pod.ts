// A Pod as the API server validates it on create (the core/v1 Pod reference: PodSpec, Container,
// Volume, VolumeMount, EnvVar, ContainerPort, ResourceRequirements).
import { duplicate, forbidden, invalid, isObject, listOf, notFound, notSupported, required, type FieldCause, type Json, type Validation } from './causes.js';
import { checkLabels, checkObjectMeta } from './meta.js';
import {
  CONFIG_KEY_HELP,
  DNS_LABEL_HELP,
  DNS_SUBDOMAIN_HELP,
  ENV_VAR_NAME_HELP,
  isConfigKey,
  isDnsLabel,
  isDnsSubdomain,
  isEnvVarName,
  isPortName,
  PORT_NAME_HELP,
} from './names.js';
import { parseQuantity, QUANTITY_HELP } from './quantity.js';

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'] as const;
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'] as const;
const TERMINATION_MESSAGE_POLICIES = ['File', 'FallbackToLogsOnError'] as const;
const PROTOCOLS = ['TCP', 'UDP', 'SCTP'] as const;
/** The volume sources a Volume names (one at most; none is defaulted to emptyDir). */
const VOLUME_SOURCES = ['emptyDir', 'hostPath', 'secret', 'configMap', 'persistentVolumeClaim', 'projected', 'downwardAPI', 'csi', 'ephemeral', 'nfs', 'image'];

function oneOf<T extends string>(value: unknown, field: string, supported: readonly T[], causes: FieldCause[]): void {
  if (value !== undefined && !(supported as readonly unknown[]).includes(value)) causes.push(notSupported(field, value, supported));
}

function isInteger(value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

/** A resource name: a standard one (cpu, memory, ephemeral-storage, hugepages-<size>) or a domain-qualified extended one. */
function isResourceName(name: string): boolean {
  if (['cpu', 'memory', 'ephemeral-storage'].includes(name)) return true;
  if (name.startsWith('hugepages-')) return parseQuantity(name.slice('hugepages-'.length)) !== null;
  const slash = name.indexOf('/');
  return slash > 0 && isDnsSubdomain(name.slice(0, slash)) && /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/.test(name.slice(slash + 1));
}

function checkResources(resources: unknown, field: string, causes: FieldCause[]): void {
  if (resources === undefined || resources === null) return;
  const given: Json = isObject(resources) ? resources : {};
  const values: Record<'requests' | 'limits', Map<string, { text: string; value: number }>> = { requests: new Map(), limits: new Map() };
  for (const kind of ['requests', 'limits'] as const) {
    const list = given[kind];
    if (list === undefined || list === null) continue;
    for (const [resource, raw] of Object.entries(isObject(list) ? list : {})) {
      const at = `${field}.${kind}[${resource}]`;
      if (!isResourceName(resource)) causes.push(invalid(at, resource, 'must be a standard resource type or fully qualified'));
      const text = String(raw);
      const value = typeof raw === 'string' || typeof raw === 'number' ? parseQuantity(text) : null;
      if (value === null) causes.push(invalid(at, text, QUANTITY_HELP));
      else if (value < 0) causes.push(invalid(at, text, 'must be greater than or equal to 0'));
      else values[kind].set(resource, { text, value });
    }
  }
  for (const [resource, request] of values.requests) {
    const limit = values.limits.get(resource);
    if (limit !== undefined && request.value > limit.value) {
      causes.push(invalid(`${field}.requests`, request.text, `must be less than or equal to ${resource} limit of ${limit.text}`));
    }
  }
}

function checkEnv(env: unknown, field: string, causes: FieldCause[]): void {
  listOf(env, field, causes).forEach((item, index) => {
    const at = `${field}[${index}]`;
    const variable: Json = isObject(item) ? item : {};
    const { name, value, valueFrom } = variable;
    if (typeof name !== 'string' || name === '') causes.push(required(`${at}.name`));
    else if (!isEnvVarName(name)) causes.push(invalid(`${at}.name`, name, ENV_VAR_NAME_HELP));
    if (valueFrom === undefined || valueFrom === null) return;
    if (value !== undefined && value !== '') causes.push(invalid(`${at}.valueFrom`, '', 'may not be specified when `value` is not empty'));
    const ref = isObject(valueFrom) ? valueFrom.secretKeyRef : undefined;
    if (!isObject(ref)) return;
    if (typeof ref.name !== 'string' || ref.name === '') causes.push(required(`${at}.valueFrom.secretKeyRef.name`));
    if (typeof ref.key !== 'string' || ref.key === '') causes.push(required(`${at}.valueFrom.secretKeyRef.key`));
    else if (!isConfigKey(ref.key)) causes.push(invalid(`${at}.valueFrom.secretKeyRef.key`, ref.key, CONFIG_KEY_HELP));
  });
}

function checkPorts(ports: unknown, field: string, causes: FieldCause[]): void {
  const names = new Set<string>();
  listOf(ports, field, causes).forEach((item, index) => {
    const at = `${field}[${index}]`;
    const port: Json = isObject(item) ? item : {};
    if (port.containerPort === undefined) causes.push(required(`${at}.containerPort`));
    else if (!isInteger(port.containerPort, 1, 65535))
      causes.push(invalid(`${at}.containerPort`, port.containerPort, 'must be between 1 and 65535, inclusive'));
    if (port.hostPort !== undefined && port.hostPort !== 0 && !isInteger(port.hostPort, 1, 65535))
      causes.push(invalid(`${at}.hostPort`, port.hostPort, 'must be between 1 and 65535, inclusive'));
    oneOf(port.protocol, `${at}.protocol`, PROTOCOLS, causes);
    if (port.name === undefined || port.name === '') return;
    if (typeof port.name !== 'string' || !isPortName(port.name)) causes.push(invalid(`${at}.name`, port.name, PORT_NAME_HELP));
    else if (names.has(port.name)) causes.push(duplicate(`${at}.name`, port.name));
    else names.add(port.name);
  });
}

function checkVolumeMounts(mounts: unknown, field: string, volumes: ReadonlySet<string>, causes: FieldCause[]): void {
  const paths = new Set<string>();
  listOf(mounts, field, causes).forEach((item, index) => {
    const at = `${field}[${index}]`;
    const mount: Json = isObject(item) ? item : {};
    if (typeof mount.name !== 'string' || mount.name === '') causes.push(required(`${at}.name`));
    else if (!volumes.has(mount.name)) causes.push(notFound(`${at}.name`, mount.name));
    if (typeof mount.mountPath !== 'string' || mount.mountPath === '') causes.push(required(`${at}.mountPath`));
    else if (paths.has(mount.mountPath)) causes.push(invalid(`${at}.mountPath`, mount.mountPath, 'must be unique'));
    else paths.add(mount.mountPath);
  });
}

function checkSecurityContext(context: unknown, field: string, causes: FieldCause[]): void {
  if (!isObject(context)) return;
  if (context.allowPrivilegeEscalation === false && context.privileged === true) {
    causes.push(invalid(`${field}`, context, 'cannot set `allowPrivilegeEscalation` to false and `privileged` to true'));
  }
  for (const id of ['runAsUser', 'runAsGroup'] as const) {
    if (context[id] !== undefined && !isInteger(context[id], 0, 2147483647))
      causes.push(invalid(`${field}.${id}`, context[id], 'must be between 0 and 2147483647, inclusive'));
  }
}

function checkContainer(item: unknown, field: string, volumes: ReadonlySet<string>, names: Set<string>, causes: FieldCause[]): void {
  const container: Json = isObject(item) ? item : {};
  const { name, image } = container;
  if (typeof name !== 'string' || name === '') causes.push(required(`${field}.name`));
  else if (!isDnsLabel(name)) causes.push(invalid(`${field}.name`, name, DNS_LABEL_HELP));
  else if (names.has(name)) causes.push(duplicate(`${field}.name`, name));
  else names.add(name);
  if (typeof image !== 'string' || image.trim() === '') causes.push(required(`${field}.image`));
  oneOf(container.imagePullPolicy, `${field}.imagePullPolicy`, PULL_POLICIES, causes);
  oneOf(container.terminationMessagePolicy, `${field}.terminationMessagePolicy`, TERMINATION_MESSAGE_POLICIES, causes);
  checkPorts(container.ports, `${field}.ports`, causes);
  checkEnv(container.env, `${field}.env`, causes);
  checkResources(container.resources, `${field}.resources`, causes);
  checkVolumeMounts(container.volumeMounts, `${field}.volumeMounts`, volumes, causes);
  checkSecurityContext(container.securityContext, `${field}.securityContext`, causes);
}

function checkVolumes(list: unknown, causes: FieldCause[]): Set<string> {
  const names = new Set<string>();
  listOf(list, 'spec.volumes', causes).forEach((item, index) => {
    const at = `spec.volumes[${index}]`;
    const volume: Json = isObject(item) ? item : {};
    const { name } = volume;
    if (typeof name !== 'string' || name === '') causes.push(required(`${at}.name`));
    else if (!isDnsLabel(name)) causes.push(invalid(`${at}.name`, name, DNS_LABEL_HELP));
    else if (names.has(name)) causes.push(duplicate(`${at}.name`, name));
    if (typeof name === 'string') names.add(name);
    const sources = VOLUME_SOURCES.filter((source) => volume[source] !== undefined && volume[source] !== null);
    if (sources.length > 1) causes.push(forbidden(at, `may not specify more than 1 volume type (${sources.join(', ')})`));
  });
  return names;
}

/** The causes the API server would give for this Pod on create (none: it is valid). */
export function validatePod(pod: unknown): Validation {
  const causes: FieldCause[] = [];
  const body: Json = isObject(pod) ? pod : {};
  const name = checkObjectMeta(body.metadata, causes);
  if (!isObject(body.spec)) {
    causes.push(required('spec'));
    return { name, causes };
  }
  const spec = body.spec;
  const volumes = checkVolumes(spec.volumes, causes);
  const containers = listOf(spec.containers, 'spec.containers', causes);
  if (containers.length === 0) causes.push(required('spec.containers'));
  const names = new Set<string>();
  listOf(spec.initContainers, 'spec.initContainers', causes).forEach((c, i) => checkContainer(c, `spec.initContainers[${i}]`, volumes, names, causes));
  containers.forEach((c, i) => checkContainer(c, `spec.containers[${i}]`, volumes, names, causes));
  oneOf(spec.restartPolicy, 'spec.restartPolicy', RESTART_POLICIES, causes);
  checkLabels(spec.nodeSelector, 'spec.nodeSelector', causes);
  if (spec.activeDeadlineSeconds !== undefined && !isInteger(spec.activeDeadlineSeconds, 1))
    causes.push(invalid('spec.activeDeadlineSeconds', spec.activeDeadlineSeconds, 'must be between 1 and 2147483647, inclusive'));
  if (spec.terminationGracePeriodSeconds !== undefined && !isInteger(spec.terminationGracePeriodSeconds, 0))
    causes.push(invalid('spec.terminationGracePeriodSeconds', spec.terminationGracePeriodSeconds, 'must be greater than or equal to 0'));
  if (spec.serviceAccountName !== undefined && (typeof spec.serviceAccountName !== 'string' || !isDnsSubdomain(spec.serviceAccountName)))
    causes.push(invalid('spec.serviceAccountName', spec.serviceAccountName, DNS_SUBDOMAIN_HELP));
  checkSecurityContext(spec.securityContext, 'spec.securityContext', causes);
  listOf(spec.imagePullSecrets, 'spec.imagePullSecrets', causes).forEach((ref, i) => {
    if (!isObject(ref) || typeof ref.name !== 'string' || ref.name === '') causes.push(required(`spec.imagePullSecrets[${i}].name`));
  });
  return { name, causes };
}
