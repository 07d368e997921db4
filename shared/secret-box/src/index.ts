export { SecretBox } from './secretBox.js';
export type { Keyring, SealedSecret, SecretKey } from './secretBox.js';
export { developmentKey, keyIdOf, parseKeySpec, parseSecretsKey, resolveKeyring } from './keys.js';
export type { KeyringSettings, ResolvedKeyring } from './keys.js';
