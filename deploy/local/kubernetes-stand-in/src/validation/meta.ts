// ObjectMeta and label selectors, shared by every kind.
import { entriesOf, invalid, isObject, listOf, notSupported, required, tooLong, type FieldCause, type Json } from './causes.js';
import { DNS_SUBDOMAIN_HELP, isDnsSubdomain, isLabelKey, isLabelValue, LABEL_KEY_HELP, LABEL_VALUE_HELP } from './names.js';

/** The documented cap on all annotations of one object together (keys and values). */
const ANNOTATIONS_MAX_BYTES = 256 * 1024;

/** Label keys and values (metadata.labels, nodeSelector, matchLabels). */
export function checkLabels(labels: unknown, field: string, causes: FieldCause[]): void {
  for (const [key, value] of entriesOf(labels, field, causes)) {
    if (!isLabelKey(key)) causes.push(invalid(field, key, LABEL_KEY_HELP));
    if (typeof value !== 'string' || !isLabelValue(value)) causes.push(invalid(`${field}[${key}]`, value, LABEL_VALUE_HELP));
  }
}

function checkAnnotations(annotations: unknown, field: string, causes: FieldCause[]): void {
  let bytes = 0;
  for (const [key, value] of entriesOf(annotations, field, causes)) {
    if (!isLabelKey(key)) causes.push(invalid(field, key, LABEL_KEY_HELP));
    bytes += Buffer.byteLength(key) + Buffer.byteLength(String(value));
  }
  if (bytes > ANNOTATIONS_MAX_BYTES) causes.push(tooLong(field, ANNOTATIONS_MAX_BYTES));
}

/**
 * metadata: a name (a DNS subdomain; or a generateName the server completes), labels, annotations.
 * Returns the name the object will have ('' when it has none).
 */
export function checkObjectMeta(metadata: unknown, causes: FieldCause[]): string {
  const meta: Json = isObject(metadata) ? metadata : {};
  const { name, generateName } = meta;
  let chosen = '';
  if (typeof name === 'string' && name !== '') chosen = name;
  else if (typeof generateName === 'string' && generateName !== '') chosen = `${generateName}${Math.random().toString(36).slice(2, 7)}`;
  else causes.push({ ...required('metadata.name'), message: 'Required value: name or generateName is required' });
  if (chosen !== '' && !isDnsSubdomain(chosen))
    causes.push(invalid(typeof name === 'string' && name !== '' ? 'metadata.name' : 'metadata.generateName', chosen, DNS_SUBDOMAIN_HELP));
  checkLabels(meta.labels, 'metadata.labels', causes);
  checkAnnotations(meta.annotations, 'metadata.annotations', causes);
  return chosen;
}

const OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;

/** A LabelSelector: matchLabels as labels; each matchExpression a label key, a known operator, values as the operator wants. */
export function checkLabelSelector(selector: unknown, field: string, causes: FieldCause[]): void {
  if (selector === undefined || selector === null) return;
  if (!isObject(selector)) {
    causes.push(invalid(field, selector, 'must be a label selector'));
    return;
  }
  checkLabels(selector.matchLabels, `${field}.matchLabels`, causes);
  listOf(selector.matchExpressions, `${field}.matchExpressions`, causes).forEach((item, index) => {
    const at = `${field}.matchExpressions[${index}]`;
    const expression: Json = isObject(item) ? item : {};
    const { key, operator } = expression;
    if (typeof key !== 'string' || key === '') causes.push(required(`${at}.key`));
    else if (!isLabelKey(key)) causes.push(invalid(`${at}.key`, key, LABEL_KEY_HELP));
    const values = listOf(expression.values, `${at}.values`, causes);
    if (typeof operator !== 'string' || !(OPERATORS as readonly string[]).includes(operator)) {
      causes.push(operator === undefined ? required(`${at}.operator`) : notSupported(`${at}.operator`, operator, OPERATORS));
      return;
    }
    if ((operator === 'In' || operator === 'NotIn') && values.length === 0)
      causes.push({ ...required(`${at}.values`), message: "Required value: must be specified when `operator` is 'In' or 'NotIn'" });
    if ((operator === 'Exists' || operator === 'DoesNotExist') && values.length > 0)
      causes.push({
        field: `${at}.values`,
        reason: 'FieldValueForbidden',
        message: "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      });
    values.forEach((value, i) => {
      if (typeof value !== 'string' || !isLabelValue(value)) causes.push(invalid(`${at}.values[${i}]`, value, LABEL_VALUE_HELP));
    });
  });
}
