import { fakeUsage, findingsMessage, parseDirectives } from '@ars/harness-stand-ins';
import { endsSilently, findingProbe, planAnswer, readProbe, type TurnState } from './script.js';

const turn = (prompt: string, toolOutputs: string[] = [], extra: Partial<TurnState> = {}): TurnState => ({
  prompt,
  earlierPrompts: [],
  model: 'gpt-test',
  toolOutputs,
  ...extra,
});

describe('an answer plays the script up to the next tool call', () => {
  const prompt = '@say one\n@say two\n@shell ls\n@say three\n@write a.txt x\n@sleep 5\n@model\n@recall';

  test('first request: the messages, then the first call ends the answer', () => {
    expect(planAnswer(turn(prompt)).actions).toEqual([
      { kind: 'say', text: 'one' },
      { kind: 'say', text: 'two' },
      { kind: 'call', call: { kind: 'shell', command: 'ls' } },
    ]);
  });

  test('each result moves the script on; what came before is not said again', () => {
    expect(planAnswer(turn(prompt, ['README.md\n'])).actions).toEqual([
      { kind: 'say', text: 'three' },
      { kind: 'call', call: { kind: 'write', path: 'a.txt', text: 'x' } },
    ]);
    expect(planAnswer(turn(prompt, ['README.md\n', 'Success.'], { earlierPrompts: ['before'] })).actions).toEqual([
      { kind: 'sleep', ms: 5 },
      { kind: 'say', text: 'model gpt-test' },
      { kind: 'say', text: 'before' },
    ]);
  });

  test('usage: the stand-ins’ rule over the steps this answer plays', () => {
    const steps = parseDirectives(prompt);
    expect(planAnswer(turn(prompt)).usage).toEqual(fakeUsage(prompt, steps.slice(0, 3)));
    expect(planAnswer(turn(prompt, ['x', 'y'])).usage).toEqual(fakeUsage(prompt, steps.slice(5)));
  });

  test('@fail ends the answer and the turn; nothing after it is played', () => {
    expect(planAnswer(turn('@say a\n@fail broke\n@say b')).actions).toEqual([
      { kind: 'say', text: 'a' },
      { kind: 'fail', message: 'broke' },
    ]);
  });

  test('no directive: the default script; a script ending with a call ends silently after its result', () => {
    expect(planAnswer(turn('Look around.')).actions).toEqual([
      { kind: 'say', text: 'Looking at the working tree.' },
      { kind: 'call', call: { kind: 'shell', command: 'ls' } },
    ]);
    const last = planAnswer(turn('Look around.', ['README.md']));
    expect(last.actions).toEqual([]);
    expect(endsSilently(last)).toBe(true);
    expect(endsSilently(planAnswer(turn('@sleep 1')))).toBe(true);
    expect(endsSilently(planAnswer(turn('@say x')))).toBe(false);
  });

  test('@write outside the tree: the model refuses, no call; @tool is a call with its JSON', () => {
    expect(planAnswer(turn('@write /etc/passwd x\n@write ../x y\n@tool search {"q":1}')).actions).toEqual([
      { kind: 'say', text: '@write: refused to write outside the working tree: /etc/passwd' },
      { kind: 'say', text: '@write: refused to write outside the working tree: ../x' },
      { kind: 'call', call: { kind: 'tool', name: 'search', input: { q: 1 } } },
    ]);
  });
});

describe('@finding: the CLI greps, the model reads its output', () => {
  const prompt =
    '@finding app.js "run(req" high Unchecked input.\n@finding gone.js x low Gone.\n@finding ../out.js x low Out.\n@finding app.js absent info Nope.';

  test('a probe per finding inside the tree; a note at once for one outside it; the findings block at the end', () => {
    const first = planAnswer(turn(prompt));
    expect(first.actions).toEqual([{ kind: 'call', call: { kind: 'shell', command: findingProbe('app.js', 'run(req') } }]);
    // codex's classic wrapper around the output; the note for gone.js comes right after its result.
    const found = 'Chunk ID: 1\nWall time: 0 seconds\nProcess exited with code 0\nOutput:\n2:  run(req.body.id);\n';
    const missing = 'grep: gone.js: No such file or directory\n@finding: grep exit 2\n';
    expect(planAnswer(turn(prompt, [found])).actions).toEqual([{ kind: 'call', call: { kind: 'shell', command: findingProbe('gone.js', 'x') } }]);
    expect(planAnswer(turn(prompt, [found, missing])).actions).toEqual([
      { kind: 'say', text: '@finding: gone.js is not in the working tree; no finding' },
      { kind: 'say', text: '@finding: ../out.js is outside the working tree; no finding' },
      { kind: 'call', call: { kind: 'shell', command: findingProbe('app.js', 'absent') } },
    ]);
    expect(planAnswer(turn(prompt, [found, missing, '@finding: grep exit 1\n'])).actions).toEqual([
      { kind: 'say', text: '@finding: no line of app.js contains "absent"; no finding' },
      { kind: 'say', text: findingsMessage([{ path: 'app.js', line: 2, severity: 'high', message: 'Unchecked input.', anchor: 'run(req.body.id);' }]) },
    ]);
  });

  test('the probe quotes for the shell; its output is read wherever the CLI put it', () => {
    expect(findingProbe("it's.js", '-x')).toBe(`grep -n -F -m1 -e '-x' -- 'it'\\''s.js' || echo "@finding: grep exit $?"`);
    expect(readProbe('Script completed\nOutput:\n12:a: b\n')).toEqual({ line: 12, text: 'a: b' });
    expect(readProbe('Exit code 1\n@finding: grep exit 1')).toBe('no-line');
    expect(readProbe('@finding: grep exit 2')).toBe('missing');
    expect(readProbe('')).toBe('missing');
  });
});
