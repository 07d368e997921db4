// Identifier rules of the Kubernetes API (k8s.io/apimachinery/pkg/util/validation), as the
// documentation states them: "Object Names and IDs", "Labels and Selectors", the Secret's keys,
// port names (IANA_SVC_NAME) and environment variable names.

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
const ENV_VAR_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

export const DNS_LABEL_HELP =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
export const DNS_SUBDOMAIN_HELP =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
export const LABEL_KEY_HELP =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName', or 'my.name', or '123-abc'), with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
export const LABEL_VALUE_HELP =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
export const CONFIG_KEY_HELP = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
export const PORT_NAME_HELP =
  "must contain only lowercase alphanumeric characters or '-', at least one letter, no '-' at either end or beside another '-', and at most 15 characters";
export const ENV_VAR_NAME_HELP =
  "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit";

/** RFC 1123 label: at most 63 characters, lower case alphanumerics and '-', alphanumeric at both ends. */
export function isDnsLabel(value: string): boolean {
  return value.length <= 63 && DNS_LABEL.test(value);
}

/** RFC 1123 subdomain: at most 253 characters, lower case alphanumerics, '-' and '.', alphanumeric at both ends. */
export function isDnsSubdomain(value: string): boolean {
  return value.length <= 253 && value.split('.').every((part) => DNS_LABEL.test(part));
}

/** A label (or annotation) key: an optional DNS-subdomain prefix and '/', then a name of at most 63 characters. */
export function isLabelKey(key: string): boolean {
  const slash = key.indexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : null;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== null && (prefix === '' || !isDnsSubdomain(prefix))) return false;
  return name.length <= 63 && QUALIFIED_NAME_PART.test(name);
}

/** A label value: empty, or at most 63 characters of alphanumerics, '-', '_' and '.', alphanumeric at both ends. */
export function isLabelValue(value: string): boolean {
  return value === '' || (value.length <= 63 && QUALIFIED_NAME_PART.test(value));
}

/** A Secret (or ConfigMap) data key: at most 253 of alphanumerics, '-', '_', '.'; not '.', '..' or starting with '..'. */
export function isConfigKey(key: string): boolean {
  return key.length <= 253 && CONFIG_KEY.test(key) && key !== '.' && !key.startsWith('..');
}

/** IANA_SVC_NAME (RFC 6335): at most 15 lower case alphanumerics and '-', one letter at least, no '-' at the ends or doubled. */
export function isPortName(name: string): boolean {
  return (
    name.length >= 1 &&
    name.length <= 15 &&
    /^[a-z0-9-]+$/.test(name) &&
    /[a-z]/.test(name) &&
    !name.startsWith('-') &&
    !name.endsWith('-') &&
    !name.includes('--')
  );
}

export function isEnvVarName(name: string): boolean {
  return ENV_VAR_NAME.test(name);
}
