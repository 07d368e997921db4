// A Secret as the API server validates it on create (the core/v1 Secret reference): data keys,
// base64 values, the 1 MiB cap, and the keys the built-in types require.
import { CONFIG_KEY_HELP, isConfigKey } from './names.js';
import { entriesOf, invalid, isObject, required, tooLong, type FieldCause, type Json, type Validation } from './causes.js';
import { checkObjectMeta } from './meta.js';

const MAX_SECRET_BYTES = 1024 * 1024;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Keys each built-in Secret type must have in data. */
const REQUIRED_KEYS: Record<string, readonly string[]> = {
  'kubernetes.io/tls': ['tls.crt', 'tls.key'],
  'kubernetes.io/dockerconfigjson': ['.dockerconfigjson'],
  'kubernetes.io/dockercfg': ['.dockercfg'],
  'kubernetes.io/ssh-auth': ['ssh-privatekey'],
};

/** The causes the API server would give for this Secret on create (none: it is valid). */
export function validateSecret(secret: unknown): Validation {
  const causes: FieldCause[] = [];
  const body: Json = isObject(secret) ? secret : {};
  const name = checkObjectMeta(body.metadata, causes);
  const keys = new Set<string>();
  let bytes = 0;
  for (const [key, value] of entriesOf(body.data, 'data', causes)) {
    keys.add(key);
    if (!isConfigKey(key)) causes.push(invalid(`data[${key}]`, key, CONFIG_KEY_HELP));
    if (typeof value !== 'string' || !BASE64.test(value)) causes.push(invalid(`data[${key}]`, '<secret contents redacted>', 'illegal base64 data'));
    else bytes += Buffer.from(value, 'base64').length;
  }
  for (const [key, value] of entriesOf(body.stringData, 'stringData', causes)) {
    keys.add(key);
    if (!isConfigKey(key)) causes.push(invalid(`stringData[${key}]`, key, CONFIG_KEY_HELP));
    bytes += Buffer.byteLength(String(value));
  }
  if (bytes > MAX_SECRET_BYTES) causes.push(tooLong('data', MAX_SECRET_BYTES));
  const type = typeof body.type === 'string' ? body.type : 'Opaque';
  for (const key of REQUIRED_KEYS[type] ?? []) {
    if (!keys.has(key)) causes.push(required(`data[${key}]`));
  }
  if (type === 'kubernetes.io/basic-auth' && !keys.has('username') && !keys.has('password')) causes.push(required('data[username]'));
  return { name, causes };
}
