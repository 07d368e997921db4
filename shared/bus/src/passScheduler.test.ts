import { describe, expect, test } from '@jest/globals';
import { silentLogger, type BusLogger } from './logger.js';
import { PassScheduler } from './passScheduler.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `holds()`; fails after `timeoutMs` (far below the minute-long poll interval the tests use). */
async function until(what: string, holds: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!holds()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** A pass that logs its start and end and publishes what `published` answers for its turn. */
function recordingPass(published: (turn: number) => number, takesMs = 5) {
  const log: string[] = [];
  let running = 0;
  let turn = 0;
  const pass = async (): Promise<number> => {
    running += 1;
    const mine = turn++;
    log.push(running > 1 ? `overlap ${mine}` : `start ${mine}`);
    await sleep(takesMs);
    running -= 1;
    log.push(`end ${mine}`);
    return published(mine);
  };
  return { pass, log, turns: () => turn };
}

/** A minute between idle passes: a pass that comes sooner was brought by a kick or a full batch. */
const IDLE = { pollIntervalMs: 60_000, batchSize: 10, logger: silentLogger };

describe('passes run one at a time: the first at once, the next after the poll interval', () => {
  test('runOnce during a running pass waits for it: no two passes overlap', async () => {
    const { pass, log, turns } = recordingPass(() => 0, 20);
    const scheduler = new PassScheduler(pass, IDLE);
    scheduler.start();
    await until('the first pass', () => turns() === 1);
    await Promise.all([scheduler.runOnce(), scheduler.runOnce()]);
    await scheduler.stop();
    expect(log).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
  });

  test('idle, the next pass waits for the poll interval', async () => {
    const { pass, log } = recordingPass(() => 0);
    const scheduler = new PassScheduler(pass, IDLE);
    scheduler.start();
    await until('the first pass to end', () => log.includes('end 0'));
    await sleep(100);
    await scheduler.stop();
    expect(log).toEqual(['start 0', 'end 0']);
  });
});

describe('a kick or a full batch brings the next pass at once', () => {
  test('kick() runs a pass without waiting for the poll interval', async () => {
    const { pass, log, turns } = recordingPass(() => 0);
    const scheduler = new PassScheduler(pass, IDLE);
    scheduler.start();
    await until('the first pass to end', () => log.includes('end 0'));
    scheduler.kick();
    await until('the kicked pass', () => turns() === 2);
    await scheduler.stop();
  });

  test('a pass that filled its batch is followed by the next at once, until one does not', async () => {
    const { pass, log } = recordingPass((turn) => (turn < 3 ? 10 : 2));
    const scheduler = new PassScheduler(pass, IDLE);
    scheduler.start();
    await until('the fourth pass to end', () => log.includes('end 3'));
    await sleep(100);
    await scheduler.stop();
    expect(log.filter((line) => line.startsWith('start'))).toEqual(['start 0', 'start 1', 'start 2', 'start 3']);
  });
});

describe('stop() waits for the running pass, and no pass starts after it', () => {
  test('stopped during a pass (with more to do): resolves after it ended; nothing runs after, kicked or not', async () => {
    const { pass, log, turns } = recordingPass(() => 10, 30);
    const scheduler = new PassScheduler(pass, IDLE);
    scheduler.start();
    await until('the first pass', () => turns() === 1);
    await scheduler.stop();
    expect(scheduler.stopped).toBe(true);
    expect(log).toEqual(['start 0', 'end 0']);
    scheduler.kick();
    await sleep(100);
    expect(log).toEqual(['start 0', 'end 0']);
  });

  test('a failing pass is logged and the loop goes on', async () => {
    let calls = 0;
    const warnings: string[] = [];
    const warn = (first: string | Record<string, unknown>, message?: string): void => void warnings.push(typeof first === 'string' ? first : (message ?? ''));
    const logger: BusLogger = { ...silentLogger, warn, child: () => logger };
    const scheduler = new PassScheduler(
      async () => {
        calls += 1;
        if (calls === 1) throw new Error('boom');
        return 0;
      },
      { pollIntervalMs: 10, batchSize: 10, logger },
    );
    scheduler.start();
    await until('a pass after the failed one', () => calls > 1);
    await scheduler.stop();
    expect(warnings[0]).toBe('outbox pass failed');
  });
});
