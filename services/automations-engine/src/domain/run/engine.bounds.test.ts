import { EngineSimulator, flow } from '../../testing/engineSimulator.js';
import { INBOX_LIMIT } from './index.js';

describe('the inbox keeps at most INBOX_LIMIT events, consumed ones leaving first', () => {
  test('a noisy sender cannot grow a run: unconsumed events beyond the limit drop the oldest, and a consumed one leaves before them', () => {
    const graph = flow(
      [
        ['start', 'start'],
        ['approval', 'await_event', { event: 'approved', timeoutSeconds: 60 }],
        ['later', 'await_event', { event: 'never', timeoutSeconds: 60 }],
        ['end', 'end'],
      ],
      [
        ['start', 'approval'],
        ['approval', 'later', 'received'],
        ['approval', 'later', 'timeout'],
        ['later', 'end', 'received'],
        ['later', 'end', 'timeout'],
      ],
    );
    const simulator = new EngineSimulator(graph);
    simulator.trigger();
    simulator.send('approved');
    for (let i = 0; i < INBOX_LIMIT; i += 1) simulator.send('noise', i);
    const { inbox } = simulator.records;
    expect(inbox).toHaveLength(INBOX_LIMIT);
    expect(inbox.some((event) => event.consumedBy === 'approval')).toBe(false);
    expect(inbox[0]?.data).toBe(0);
    simulator.send('noise', INBOX_LIMIT);
    expect(simulator.records.inbox).toHaveLength(INBOX_LIMIT);
    expect(simulator.records.inbox[0]?.data).toBe(1);
  });
});
