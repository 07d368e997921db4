export { KubernetesStandIn, kubeletEvictionMessage } from './standIn.js';
export type { RecordedCall, StandInOptions, StandInRule } from './standIn.js';
export {
  isConfigKey,
  isDnsLabel,
  isDnsSubdomain,
  isLabelKey,
  isLabelValue,
  parseQuantity,
  validateNetworkPolicy,
  validatePod,
  validateSecret,
} from './validation/index.js';
export type { FieldCause, Validation } from './validation/index.js';
