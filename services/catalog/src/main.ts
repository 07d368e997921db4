// The catalog service: owns installations, repositories, agents (owned and presets), models and the per-user model policy.
import { runService } from '@ars/service';

await runService({
  name: 'catalog',
  port: 8081,
  requireMongo: true,
  requireBus: true,
});
