import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './paths.js';

/** What a running `npm start` tells local tools (the admin command) about itself: `.stack/stack.json`. */
export interface StackFile {
  baseUrl: string;
  /** The stack's Kafka bootstrap brokers (`host:port`), for tools that talk to the bus (re-drive). */
  kafkaBrokers?: string[];
  pid: number;
  startedAt: string;
}

const FILE = 'stack.json';

export function writeStackFile(dir: string, baseUrl: string, extra: { kafkaBrokers?: string[] } = {}): void {
  mkdirSync(dir, { recursive: true });
  const content: StackFile = { baseUrl, ...extra, pid: process.pid, startedAt: new Date().toISOString() };
  writeFileSync(join(dir, FILE), `${JSON.stringify(content)}\n`);
}

export function removeStackFile(dir: string): void {
  rmSync(join(dir, FILE), { force: true });
}

/** The running local stack's file, or undefined when none is running (a stale file is ignored). */
export function readStackFile(dir = join(repoRoot, '.stack')): StackFile | undefined {
  try {
    const content = JSON.parse(readFileSync(join(dir, FILE), 'utf8')) as StackFile;
    process.kill(content.pid, 0);
    return content;
  } catch {
    return undefined;
  }
}
