// The harness adapters (@ars/harnesses), with where this repository's stand-in CLIs are.
export * from '@ars/harnesses';
export { standInExecutable, standInFiles } from './standInPaths.js';
