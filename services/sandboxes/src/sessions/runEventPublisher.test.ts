import { describe, expect, test } from '@jest/globals';
import type { OutgoingMessage, RunAgentEventData } from '@ars/bus';
import { RunEventPublisher } from './runEventPublisher.js';

type Message = OutgoingMessage<RunAgentEventData>;

const event = (seq: number): Message => ({
  key: 'run-1',
  type: 'run.agent-event',
  id: `run-1:event:${seq}`,
  data: { runId: 'run-1', seq, eventType: 'message', toolName: null, message: `line ${seq}`, payload: {}, emittedAt: new Date(0).toISOString() },
});

/** A send that waits until the test lets it go, recording what each send carried. */
function heldSends() {
  const sends: number[][] = [];
  const releases: (() => void)[] = [];
  const send = (messages: Message[]) => {
    sends.push(messages.map(({ data }) => data.seq));
    return new Promise<void>((resolve) => releases.push(resolve));
  };
  const releaseNext = async () => {
    releases.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { sends, send, releaseNext };
}

const noCount = async () => undefined;

describe('an event alone leaves at once; those added while a send is in flight leave together in the next, in order', () => {
  test('the first event is sent by itself, the next four in one send, and the count recorded after each send', async () => {
    const { sends, send, releaseNext } = heldSends();
    const counts: number[] = [];
    const publisher = new RunEventPublisher(send, async (sent) => void counts.push(sent));
    for (let seq = 0; seq < 5; seq++) await publisher.add(event(seq));
    expect(sends).toEqual([[0]]);
    await releaseNext();
    expect(sends).toEqual([[0], [1, 2, 3, 4]]);
    await releaseNext();
    await publisher.drain();
    expect(counts).toEqual([1, 5]);
    expect(publisher.published).toBe(5);
  });

  test('a send carries at most maxBatch events; the rest follow in order', async () => {
    const { sends, send, releaseNext } = heldSends();
    const publisher = new RunEventPublisher(send, noCount, { maxBatch: 3, maxQueued: 100 });
    for (let seq = 0; seq < 8; seq++) await publisher.add(event(seq));
    for (let i = 0; i < 4; i++) await releaseNext();
    await publisher.drain();
    expect(sends).toEqual([[0], [1, 2, 3], [4, 5, 6], [7]]);
  });
});

describe('a harness faster than the bus is slowed down, never dropped', () => {
  test('add waits while maxQueued events wait, and resolves once a send takes them', async () => {
    const { sends, send, releaseNext } = heldSends();
    const publisher = new RunEventPublisher(send, noCount, { maxBatch: 10, maxQueued: 3 });
    await publisher.add(event(0)); // sent at once
    await publisher.add(event(1));
    await publisher.add(event(2));
    let added = false;
    const third = publisher.add(event(3)).then(() => (added = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(added).toBe(false);
    await releaseNext();
    await third;
    expect(added).toBe(true);
    await releaseNext();
    await publisher.drain();
    expect(sends.flat()).toEqual([0, 1, 2, 3]);
  });
});

describe('a send that fails fails the publisher: nothing after it is sent, and the run learns why', () => {
  test('the next add and drain reject with the send’s error; published counts only the events sent before it', async () => {
    let calls = 0;
    const failure = new Error('the message bus could not be reached for 60 s');
    const publisher = new RunEventPublisher(async () => {
      calls++;
      if (calls === 2) throw failure;
    }, noCount);
    await publisher.add(event(0));
    await publisher.drain();
    await publisher.add(event(1));
    await expect(publisher.drain()).rejects.toBe(failure);
    await expect(publisher.add(event(2))).rejects.toBe(failure);
    expect(calls).toBe(2);
    expect(publisher.published).toBe(1);
  });
});
