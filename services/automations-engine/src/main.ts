// The automations-engine service: owns automations, published versions, automation runs, node runs, dispatch events and timers.
import { runService } from '@ars/service';

await runService({
  name: 'automations-engine',
  port: 8084,
  requireMongo: true,
  requireBus: true,
});
