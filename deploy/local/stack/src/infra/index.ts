import { startLocalKafka, type LocalKafka } from './kafka.js';
import { startLocalMongo, type LocalMongo } from './mongo.js';
import { startLocalRedis, type LocalRedis } from './redis.js';

export interface Infrastructure {
  kafkaBrokers: string[];
  mongoUrl: string;
  redisUrl: string;
  /** The local processes started (absent where a real server was given). */
  local: { kafka?: LocalKafka; mongo?: LocalMongo; redis?: LocalRedis };
  stop(): Promise<void>;
}

export interface InfrastructureOptions {
  /** Real servers replace the local ones when given. */
  kafkaBrokers?: string;
  mongoUrl?: string;
  redisUrl?: string;
  /** Where the development Mongo keeps its data; memory only when absent. */
  mongoDbpath?: string;
  output?: (line: string) => void;
}

/** Kafka, MongoDB and Redis: each the given server, or a local stand-in started here. */
export async function startInfrastructure(options: InfrastructureOptions): Promise<Infrastructure> {
  const local: Infrastructure['local'] = {};
  const stopLocal = async (): Promise<void> => {
    await Promise.all([local.kafka?.stop(), local.mongo?.stop(), local.redis?.stop()]);
  };
  try {
    const [kafka, mongo, redis] = await Promise.all([
      options.kafkaBrokers ? undefined : startLocalKafka({ output: options.output }).then((k) => (local.kafka = k)),
      options.mongoUrl ? undefined : startLocalMongo({ dbpath: options.mongoDbpath, output: options.output }).then((m) => (local.mongo = m)),
      options.redisUrl ? undefined : startLocalRedis(options.output).then((r) => (local.redis = r)),
    ]);
    return {
      kafkaBrokers: kafka ? kafka.brokers : splitList(options.kafkaBrokers ?? ''),
      mongoUrl: mongo ? mongo.url : (options.mongoUrl ?? ''),
      redisUrl: redis ? redis.url : (options.redisUrl ?? ''),
      local,
      stop: stopLocal,
    };
  } catch (error) {
    await stopLocal();
    throw error;
  }
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

export type { LocalKafka, LocalMongo, LocalRedis };
