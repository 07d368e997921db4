import { startChild, jsonLine, type ManagedChild } from '../childProcess.js';
import { fromRoot } from '../paths.js';

export interface LocalKafka {
  brokers: string[];
  child: ManagedChild;
  /** Sends one fault-injection command (see deploy/local/kafka-mock/README.md) and waits for its answer. */
  command(line: string): Promise<void>;
  stop(): Promise<void>;
}

/** librdkafka's mock cluster with the topic catalog pre-created, as its own process. */
export async function startLocalKafka(options: { brokers?: number; output?: (line: string) => void } = {}): Promise<LocalKafka> {
  const args = [fromRoot('deploy/local/kafka-mock/dist/main.js'), '--brokers', String(options.brokers ?? 3)];
  const child = startChild({ name: 'kafka-mock', command: process.execPath, args, output: options.output });
  const bootstrap = await child.waitForLine((line) => {
    const message = jsonLine(line);
    return typeof message?.bootstrap === 'string' ? message.bootstrap : undefined;
  }, 30_000);
  let queue: Promise<void> = Promise.resolve();
  return {
    brokers: bootstrap.split(','),
    child,
    command(line: string): Promise<void> {
      const answer = queue.then(async () => {
        const reply = child.waitForLine((out) => {
          const message = jsonLine(out);
          return message && typeof message.ok === 'boolean' ? message : undefined;
        }, 10_000);
        child.process.stdin?.write(`${line}\n`);
        const result = await reply;
        if (result.ok !== true) throw new Error(`kafka-mock: ${line}: ${String(result.error)}`);
      });
      queue = answer.catch(() => undefined);
      return answer;
    },
    stop: async () => {
      child.process.stdin?.end();
      await child.stop(5_000);
    },
  };
}
