export { SecretBox } from './secretBox.js';
export { resealInBackground, resealStale } from './reseal.js';
export type { BackgroundReseal, ReplaceSeal, ResealLog, ResealReport, StoredSeal } from './reseal.js';
export type { Keyring, SealedSecret, SecretKey } from './secretBox.js';
export { developmentKey, keyIdOf, parseKeySpec, parseSecretsKey, resolveKeyring } from './keys.js';
export type { KeyringSettings, ResolvedKeyring } from './keys.js';
