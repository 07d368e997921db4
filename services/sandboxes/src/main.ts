// The sandboxes service: owns sandboxes, sandbox lifecycle events and logs; it executes harness sessions for runs.
import { runService } from '@ars/service';

await runService({
  name: 'sandboxes',
  port: 8083,
  requireMongo: true,
  requireBus: true,
});
