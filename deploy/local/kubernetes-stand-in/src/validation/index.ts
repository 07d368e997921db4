export type { FieldCause, Validation } from './causes.js';
export { validatePod } from './pod.js';
export { validateSecret } from './secret.js';
export { validateNetworkPolicy } from './networkPolicy.js';
export { isConfigKey, isDnsLabel, isDnsSubdomain, isLabelKey, isLabelValue } from './names.js';
export { parseQuantity } from './quantity.js';
