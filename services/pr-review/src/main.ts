// The pr-review service: owns PR review attempts and findings.
import { runService } from '@ars/service';

await runService({
  name: 'pr-review',
  port: 8085,
  requireMongo: true,
  requireBus: true,
});
