// The mcp-registry service: owns the account's external tool server configurations (secrets encrypted at rest).
import { runService } from '@ars/service';

await runService({
  name: 'mcp-registry',
  port: 8086,
  requireMongo: true,
  requireBus: true,
});
