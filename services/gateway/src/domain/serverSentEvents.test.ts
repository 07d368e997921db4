import { HEARTBEAT, sseEvent, streamErrorFrame, wantsEventStream } from './serverSentEvents.js';

describe('SSE framing: id (when given), event, one data line per line, a blank line', () => {
  test('a run event frame carries its id; a status frame none', () => {
    expect(sseEvent('assistant_message', '{"a":1}', 'run:event:1')).toBe('id: run:event:1\nevent: assistant_message\ndata: {"a":1}\n\n');
    expect(sseEvent('run', '{"status":"success"}')).toBe('event: run\ndata: {"status":"success"}\n\n');
  });

  test('data with newlines (any of CRLF, CR, LF) is split over data lines, so no line can end the frame early', () => {
    expect(sseEvent('x', 'one\r\ntwo\rthree\nfour')).toBe('event: x\ndata: one\ndata: two\ndata: three\ndata: four\n\n');
  });

  test('heartbeats are comments, and a failure mid-stream is one error event', () => {
    expect(HEARTBEAT.startsWith(':')).toBe(true);
    expect(streamErrorFrame('SERVICE_UNAVAILABLE', 'down')).toBe('event: error\ndata: {"code":"SERVICE_UNAVAILABLE","message":"down"}\n\n');
  });
});

describe('the stream is chosen by Accept: text/event-stream', () => {
  test.each([
    ['text/event-stream', true],
    ['application/json, text/event-stream', true],
    ['text/event-stream;q=0.9', true],
    ['application/json', false],
    ['text/event-streamx', false],
    ['', false],
  ])('%j → %s', (accept, expected) => {
    expect(wantsEventStream(accept)).toBe(expected);
  });
});
