// The mcp-registry service: owns each user's external tool server configurations (encrypted at rest).
import { startMcpRegistry } from './mcpRegistry.js';

await startMcpRegistry();
