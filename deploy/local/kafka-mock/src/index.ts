import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

/** A running librdkafka mock cluster (its own process), with fault injection. */
export interface KafkaMock {
  /** Bootstrap addresses, `host:port`, one per broker (broker id i is `brokers[i - 1]`). */
  brokers: string[];
  /** Disconnects broker `id` (1..N, or -1 for all) and refuses new connections. No leader change. */
  brokerDown(id: number): Promise<void>;
  /** Lets broker `id` (1..N, or -1 for all) accept connections again. */
  brokerUp(id: number): Promise<void>;
  /** The next `count` (default 1) requests with Kafka API key `apiKey` fail with `errorCode`. */
  pushRequestErrors(apiKey: number, errorCode: number, count?: number): Promise<void>;
  /** Adds `ms` of round-trip time to every answer of broker `brokerId` (1..N, or -1 for all). */
  setLatency(brokerId: number, ms: number): Promise<void>;
  /** Destroys the cluster and waits for its process to exit. Idempotent. */
  close(): Promise<void>;
}

export interface KafkaMockOptions {
  /** Number of brokers, ids 1..N. Default 3. */
  brokers?: number;
  /** Topics created before the bootstrap address is announced, with their partition counts. */
  topics: { name: string; partitions: number }[];
  /**
   * How long a new consumer group's first join waits for more members, as the broker setting
   * `group.initial.rebalance.delay.ms` (Kafka's default 3,000). Default 250: members started
   * together (a service's instances) still join one generation, and a test's or a service's first
   * join does not wait 3 s.
   */
  initialRebalanceDelayMs?: number;
  /** Where the helper's stderr lines go; default: dropped. */
  output?: (line: string) => void;
}

/** The first-join delay of a mock cluster unless told otherwise (KafkaMockOptions.initialRebalanceDelayMs). */
export const DEFAULT_INITIAL_REBALANCE_DELAY_MS = 250;

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Path of the C helper. */
export const kafkaMockBinary: string = join(packageRoot, 'bin', 'kafka-mock');

/**
 * Builds the C helper (`build.sh`) when the binary is missing or older than its source.
 * Throws with the compiler's output when gcc or librdkafka-dev is missing.
 */
export function ensureKafkaMockBuilt(): string {
  const source = join(packageRoot, 'src', 'kafka-mock.c');
  const stale = !existsSync(kafkaMockBinary) || (existsSync(source) && statSync(source).mtimeMs > statSync(kafkaMockBinary).mtimeMs);
  if (stale) {
    const result = spawnSync('bash', [join(packageRoot, 'build.sh')], { encoding: 'utf8' });
    if (result.status !== 0) {
      const why = `${result.stderr || result.error?.message || ''}`.trim();
      if (!existsSync(kafkaMockBinary)) throw new Error(`kafka-mock: build failed (needs gcc and librdkafka-dev): ${why}`);
      process.stderr.write(`kafka-mock: rebuild failed, using the existing binary: ${why}\n`);
    }
  }
  return kafkaMockBinary;
}

/** Command-line arguments of the helper for these options. */
export function kafkaMockArgs(options: Pick<KafkaMockOptions, 'brokers' | 'topics' | 'initialRebalanceDelayMs'>): string[] {
  const brokers = options.brokers ?? 3;
  if (!Number.isInteger(brokers) || brokers < 1 || brokers > 64) throw new Error(`kafka-mock: brokers must be 1..64, got ${brokers}`);
  const delay = options.initialRebalanceDelayMs ?? DEFAULT_INITIAL_REBALANCE_DELAY_MS;
  if (!Number.isInteger(delay) || delay < 0 || delay > 300_000) throw new Error(`kafka-mock: initialRebalanceDelayMs must be 0..300000, got ${delay}`);
  const args = ['--brokers', String(brokers), '--initial-rebalance-delay-ms', String(delay)];
  for (const topic of options.topics) {
    if (!topic.name || /\s/.test(topic.name) || !Number.isInteger(topic.partitions) || topic.partitions < 1) {
      throw new Error(`kafka-mock: bad topic ${JSON.stringify(topic)}`);
    }
    args.push('--topic', `${topic.name}:${topic.partitions}`);
  }
  return args;
}

interface Reply {
  ok: boolean;
  error?: string;
}

/**
 * Starts librdkafka's mock cluster (building the helper first if needed), with `topics` pre-created.
 * Resolves once the brokers listen.
 */
export async function startKafkaMock(options: KafkaMockOptions): Promise<KafkaMock> {
  const args = kafkaMockArgs(options);
  const binary = ensureKafkaMockBuilt();
  const child: ChildProcess = spawn(binary, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const output = options.output;
  const stderr: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => {
    stderr.push(line);
    if (stderr.length > 20) stderr.shift();
    output?.(line);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let running = true;
  void exited.then(() => (running = false));

  const pending: { resolve: (reply: Reply) => void; reject: (error: Error) => void }[] = [];
  let onBootstrap: ((bootstrap: string) => void) | undefined;
  createInterface({ input: child.stdout! }).on('line', (line) => {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      output?.(line);
      return;
    }
    if (typeof message !== 'object' || message === null) return;
    const record = message as Record<string, unknown>;
    if (typeof record.bootstrap === 'string' && onBootstrap) {
      onBootstrap(record.bootstrap);
      onBootstrap = undefined;
    } else if (typeof record.ok === 'boolean') {
      pending.shift()?.resolve({ ok: record.ok, error: typeof record.error === 'string' ? record.error : undefined });
    }
  });
  void exited.then(() => {
    for (const waiter of pending.splice(0)) waiter.reject(new Error('kafka-mock exited'));
  });

  const bootstrap = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('kafka-mock did not announce its bootstrap address within 30 s'));
    }, 30_000);
    onBootstrap = (value) => {
      clearTimeout(timer);
      resolve(value);
    };
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`kafka-mock exited before it was ready: ${stderr.join('\n')}`));
    });
  });

  const command = (line: string): Promise<void> =>
    new Promise<Reply>((resolve, reject) => {
      if (!running || !child.stdin?.writable) {
        reject(new Error('kafka-mock is not running'));
        return;
      }
      pending.push({ resolve, reject });
      child.stdin.write(`${line}\n`);
    }).then((reply) => {
      if (!reply.ok) throw new Error(`kafka-mock: ${line}: ${reply.error ?? 'failed'}`);
    });

  let closing: Promise<void> | undefined;
  return {
    brokers: bootstrap.split(',').filter((b) => b.length > 0),
    brokerDown: (id) => command(`broker-down ${id}`),
    brokerUp: (id) => command(`broker-up ${id}`),
    pushRequestErrors: (apiKey, errorCode, count = 1) => command(`request-errors ${apiKey} ${errorCode} ${count}`),
    setLatency: (brokerId, ms) => command(`latency ${brokerId} ${ms}`),
    close(): Promise<void> {
      closing ??= (async () => {
        if (!running) return;
        child.stdin?.end();
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      })();
      return closing;
    },
  };
}
