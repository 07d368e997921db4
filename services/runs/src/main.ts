// The runs service: owns runs, run events and run idempotency records.
import { runService } from '@ars/service';

await runService({
  name: 'runs',
  port: 8082,
  requireMongo: true,
  requireBus: true,
});
