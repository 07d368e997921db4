#!/usr/bin/env node
// `npm run --silent kafka-mock -- [--brokers N] [--topic name:partitions ...] [--initial-rebalance-delay-ms MS]`: librdkafka's mock
// cluster with the whole @ars/bus topic catalog (and its dead-letter topics) pre-created. Prints
// the bootstrap JSON line, then forwards fault-injection commands from stdin (see README.md).
import { spawn } from 'node:child_process';
import { topicProvisioning } from '@ars/bus';
import { ensureKafkaMockBuilt, kafkaMockArgs } from './index.js';

function parse(argv: string[]): { brokers: number; extra: { name: string; partitions: number }[]; initialRebalanceDelayMs?: number } {
  let brokers = 3;
  let initialRebalanceDelayMs: number | undefined;
  const extra: { name: string; partitions: number }[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = argv[i + 1];
    if (arg === '--brokers' && value !== undefined) {
      brokers = Number(value);
      i++;
    } else if (arg === '--topic' && value !== undefined) {
      const at = value.lastIndexOf(':');
      extra.push({ name: value.slice(0, at), partitions: Number(value.slice(at + 1)) });
      i++;
    } else if (arg === '--initial-rebalance-delay-ms' && value !== undefined) {
      initialRebalanceDelayMs = Number(value);
      i++;
    } else {
      process.stderr.write('usage: kafka-mock [--brokers N] [--topic name:partitions ...] [--initial-rebalance-delay-ms MS]\n');
      process.exit(2);
    }
  }
  return { brokers, extra, initialRebalanceDelayMs };
}

const { brokers, extra, initialRebalanceDelayMs } = parse(process.argv.slice(2));
const topics = [...topicProvisioning(), ...extra];
const args = kafkaMockArgs({ brokers, topics, initialRebalanceDelayMs });
const binary = ensureKafkaMockBuilt();

// The helper reads our stdin and writes our stdout directly: commands and answers pass through
// untouched, and EOF on our stdin (the parent went away) stops the cluster.
const child = spawn(binary, args, { stdio: 'inherit' });
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  process.on(signal, () => {
    child.kill('SIGTERM');
  });
}
child.on('error', (error) => {
  process.stderr.write(`kafka-mock: ${error.message}\n`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  process.exit(code ?? (signal ? 1 : 0));
});
