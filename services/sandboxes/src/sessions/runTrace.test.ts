// What a tool call's span says of its outcome, from each harness's tool_call payloads (harness/README.md, Events).
import { toolCallStatus } from './runTrace.js';

describe('a tool call span’s status is ok, error or unfinished, read from the event’s payload only', () => {
  test('a shell call exiting 0 is ok; a non-zero exit, an error result or a failed status is error', () => {
    expect(toolCallStatus({ kind: 'shell', exitCode: 0, output: 'x' })).toBe('ok');
    expect(toolCallStatus({ kind: 'shell', exitCode: 2, output: 'x' })).toBe('error');
    expect(toolCallStatus({ kind: 'tool', isError: true })).toBe('error');
    expect(toolCallStatus({ kind: 'file_edit', status: 'failed' })).toBe('error');
    expect(toolCallStatus({ kind: 'mcp', status: 'completed' })).toBe('ok');
  });
  test('a Claude tool use that never got a result is unfinished', () => {
    expect(toolCallStatus({ kind: 'tool', status: 'unfinished' })).toBe('unfinished');
  });
});
