// The catalog service: owns installations, repositories, agents (owned and presets), models and the per-user model policy.
import { startCatalog } from './catalog.js';

await startCatalog();
