// The sandboxes service: owns sandboxes, sandbox lifecycle events and logs; it executes harness sessions for runs.
import { startSandboxes } from './sandboxes.js';

await startSandboxes();
