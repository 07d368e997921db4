import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { FINDINGS_FENCE, FINDING_SEVERITIES } from '@ars/contract';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseClaudeArgs } from './claudeCodeStandIn.js';
import { parseCodexArgs } from './codexStandIn.js';
import {
  DEFAULT_STEPS,
  STANDIN_FINDINGS_FENCE,
  STANDIN_FINDING_SEVERITIES,
  collectFinding,
  fakeUsage,
  findingsMessage,
  locateFinding,
  modelAnswer,
  parseDirectives,
  recallAnswer,
  resolveInTree,
  treePath,
  escapeText,
  unescapeText,
  writeInTree,
  type Step,
} from './directives.js';

describe('directives: one per line, every other line is ordinary prompt text', () => {
  test('each directive is read with its argument', () => {
    expect(
      parseDirectives(
        [
          'Fix the bug.',
          '@say hello world',
          '  @tool search {"q":"x","n":[1,2]}',
          '@shell echo hi && ls -la',
          '@write docs/notes.md line one\\nline two',
          '@sleep 250',
          '@fail it broke',
        ].join('\n'),
      ),
    ).toEqual([
      { kind: 'say', text: 'hello world' },
      { kind: 'tool', name: 'search', input: { q: 'x', n: [1, 2] } },
      { kind: 'shell', command: 'echo hi && ls -la' },
      { kind: 'write', path: 'docs/notes.md', text: 'line one\nline two' },
      { kind: 'sleep', ms: 250 },
      { kind: 'fail', message: 'it broke' },
    ]);
  });

  test('a prompt without directives gets one message and one ls', () => {
    expect(parseDirectives('Please refactor.\nThanks')).toEqual(DEFAULT_STEPS);
    expect(DEFAULT_STEPS.map((s) => s.kind)).toEqual(['say', 'shell']);
  });

  test('unknown and malformed directives are ordinary text', () => {
    const prompt = [
      '@unknown x',
      '@sayhello',
      'text @say not at the start',
      '@tool search [1,2]',
      '@tool search {not json',
      '@sleep soon',
      '@shell',
      '@say kept',
    ].join('\n');
    expect(parseDirectives(prompt)).toEqual([{ kind: 'say', text: 'kept' }]);
  });

  test('@tool without JSON has an empty input; @fail without a message has a default one', () => {
    expect(parseDirectives('@tool ping\n@fail')).toEqual([
      { kind: 'tool', name: 'ping', input: {} },
      { kind: 'fail', message: 'the agent failed' },
    ]);
  });

  test('\\n stands for a newline and \\\\ for a backslash', () => {
    expect(unescapeText('a\\nb\\\\nc')).toBe('a\nb\\nc');
  });
});

describe('@write stays inside the working tree', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ars-directives-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('absolute paths and traversal are refused', () => {
    for (const path of ['/etc/passwd', '../x', 'a/../../x', 'a/../..', '..', '']) {
      expect(resolveInTree(dir, path)).toBeNull();
    }
    expect(resolveInTree(dir, 'a/./b/../c.txt')).toBe(join(dir, 'a/c.txt'));
  });

  test('the same rule without a tree (the model stand-in’s): the normalized relative path, or null', () => {
    for (const path of ['/etc/passwd', '../x', 'a/../../x', 'a/../..', '..', '', 'a\0b']) expect(treePath(path)).toBeNull();
    expect(treePath('./a/./b/../c.txt')).toBe('a/c.txt');
    expect(treePath('notes.md')).toBe('notes.md');
  });

  test('a write creates folders and says whether the file was added or updated', async () => {
    expect(await writeInTree(dir, 'x/y.txt', 'one')).toMatchObject({ ok: true, kind: 'add' });
    expect(await writeInTree(dir, 'x/y.txt', 'two')).toMatchObject({ ok: true, kind: 'update' });
    expect(await readFile(join(dir, 'x/y.txt'), 'utf8')).toBe('two');
    expect(await writeInTree(dir, '../escape.txt', 'no')).toMatchObject({ ok: false });
  });
});

describe('@model answers with the model the stand-in was given', () => {
  test('@model is a step of its own; with an argument it is ordinary text', () => {
    expect(parseDirectives('@model\n@model gpt-x\n  @model  ')).toEqual([{ kind: 'model' }, { kind: 'model' }]);
  });

  test('the answer names the --model given, or (default) without one', () => {
    expect(modelAnswer('gpt-5-codex')).toBe('model gpt-5-codex');
    expect(modelAnswer(null)).toBe('model (default)');
  });

  test('claude-code without --model reports its default name but answers (default)', () => {
    expect(parseClaudeArgs(['--output-format=stream-json', '--input-format=stream-json'])).toEqual({
      model: 'claude-standin',
      requestedModel: null,
      permissionMode: 'default',
      resume: null,
      forkSession: false,
    });
  });
});

describe('stand-in usage is deterministic: a quarter of the prompt plus 100 in, 20 per step plus 10 out', () => {
  test('the numbers follow the prompt and its steps', () => {
    const prompt = '@say a\n@say b';
    expect(fakeUsage(prompt, parseDirectives(prompt))).toEqual({ input: Math.ceil(prompt.length / 4) + 100, output: 50 });
    expect(fakeUsage('', [])).toEqual({ input: 101, output: 10 });
  });
});

describe('stand-in command lines are the ones the SDKs pass', () => {
  test('codex: exec --experimental-json with options and resume', () => {
    expect(
      parseCodexArgs([
        'exec',
        '--experimental-json',
        '--model',
        'gpt-x',
        '--sandbox',
        'workspace-write',
        '--cd',
        '/w',
        '--skip-git-repo-check',
        '--config',
        'a="b"',
        'resume',
        't1',
      ]),
    ).toEqual({ cd: '/w', model: 'gpt-x', resume: 't1', readOnly: false });
    expect(typeof parseCodexArgs(['exec'])).toBe('string');
    expect(typeof parseCodexArgs(['login'])).toBe('string');
  });

  test('claude-code: stream-json both ways, flag=value form', () => {
    expect(
      parseClaudeArgs([
        '--output-format',
        'stream-json',
        '--verbose',
        '--input-format',
        'stream-json',
        '--model=claude-x',
        '--permission-mode=bypassPermissions',
      ]),
    ).toEqual({ model: 'claude-x', requestedModel: 'claude-x', permissionMode: 'bypassPermissions', resume: null, forkSession: false });
    expect(typeof parseClaudeArgs(['-p', 'hello'])).toBe('string');
  });
});

describe('@finding <path> <text> <severity> <message>: a finding on the first line of <path> that contains <text>', () => {
  test('<text> is one word, or a JSON string when it starts with "; <message> is the rest of the line', () => {
    expect(
      parseDirectives(
        [
          '@finding src/a.ts query( high The id reaches the query unchecked.',
          '  @finding lib/b.js "return  db.query(id);" critical Two spaces\\nand a newline',
          '@finding c.py "say \\"hi\\"" info quoted',
        ].join('\n'),
      ),
    ).toEqual([
      { kind: 'finding', path: 'src/a.ts', text: 'query(', severity: 'high', message: 'The id reaches the query unchecked.' },
      { kind: 'finding', path: 'lib/b.js', text: 'return  db.query(id);', severity: 'critical', message: 'Two spaces\nand a newline' },
      { kind: 'finding', path: 'c.py', text: 'say "hi"', severity: 'info', message: 'quoted' },
    ]);
  });

  test('malformed: ordinary text (no severity, unknown severity, no message, unclosed or empty JSON string)', () => {
    const prompt = [
      '@finding src/a.ts query(',
      '@finding src/a.ts query( blocker message',
      '@finding src/a.ts query( high',
      '@finding src/a.ts "unclosed high message',
      '@finding src/a.ts "" high message',
      '@finding src/a.ts "x"y high message',
      '@finding',
    ].join('\n');
    expect(parseDirectives(prompt)).toEqual(DEFAULT_STEPS);
  });

  test('the fence and severities the stand-ins spell are the findings format of @ars/contract', () => {
    expect(STANDIN_FINDINGS_FENCE).toBe(FINDINGS_FENCE);
    expect(STANDIN_FINDING_SEVERITIES).toEqual(FINDING_SEVERITIES);
  });
});

describe('@finding follows the code: it reads the file in the working tree, and says so when the file or the text is not there', () => {
  let dir: string;
  const step = (path: string, text: string): Extract<Step, { kind: 'finding' }> => ({ kind: 'finding', path, text, severity: 'high', message: 'm' });
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ars-finding-'));
    await mkdir(join(dir, 'src'));
    await writeFile(join(dir, 'src/a.ts'), 'const a = 1;\n  return db.query(id);\nreturn db.query(id);\n');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('the first line containing the text; its line moves when lines are inserted above', async () => {
    expect(await locateFinding(dir, step('./src/a.ts', 'db.query('))).toEqual({
      ok: true,
      finding: { path: 'src/a.ts', line: 2, severity: 'high', message: 'm', anchor: 'return db.query(id);' },
    });
    await writeFile(join(dir, 'src/a.ts'), '// one\n// two\nconst a = 1;\n  return db.query(id);\n');
    expect(await locateFinding(dir, step('src/a.ts', 'db.query('))).toMatchObject({ ok: true, finding: { line: 4 } });
  });

  test('a missing file, a text on no line, a path outside the tree: a message, no finding', async () => {
    const findings: never[] = [];
    expect(await collectFinding(dir, step('src/gone.ts', 'x'), findings)).toBe('@finding: src/gone.ts is not in the working tree; no finding');
    expect(await collectFinding(dir, step('src/a.ts', 'nowhere'), findings)).toBe('@finding: no line of src/a.ts contains "nowhere"; no finding');
    expect(await collectFinding(dir, step('../a.ts', 'x'), findings)).toBe('@finding: ../a.ts is outside the working tree; no finding');
    expect(findings).toEqual([]);
  });

  test('the final message carries every finding in one ```ars-findings block (a JSON array, [] when none)', () => {
    const finding = { path: 'src/a.ts', line: 2, severity: 'high' as const, message: 'm', anchor: 'x' };
    expect(findingsMessage([finding])).toBe(`Review done: 1 finding(s).\n\n\`\`\`ars-findings\n${JSON.stringify([finding], null, 2)}\n\`\`\``);
    expect(findingsMessage([])).toBe('Review done: 0 finding(s).\n\n```ars-findings\n[]\n```');
  });
});

describe('@recall: alone on its line, one message listing the earlier prompts of the thread, oldest first, one per line', () => {
  test('@recall alone (leading spaces allowed) is the directive; with an argument it is ordinary text', () => {
    expect(parseDirectives('  @recall\n@say x')).toEqual([{ kind: 'recall' }, { kind: 'say', text: 'x' }]);
    expect(parseDirectives('@recall everything')).toEqual(DEFAULT_STEPS);
    expect(parseDirectives('@recalls')).toEqual(DEFAULT_STEPS);
  });

  test('the earlier prompts one per line, oldest first; none: no earlier prompts', () => {
    expect(recallAnswer(['first', 'second'])).toBe('first\nsecond');
    expect(recallAnswer([])).toBe('no earlier prompts');
  });

  test('a prompt of several lines stays on one line: backslashes doubled, newlines as \\n (unescapeText gives it back)', () => {
    const prompt = 'line one\r\nline \\two\nthree';
    expect(escapeText(prompt)).toBe('line one\\nline \\\\two\\nthree');
    expect(recallAnswer([prompt, 'x'])).toBe('line one\\nline \\\\two\\nthree\nx');
    expect(unescapeText(escapeText('a\\n\nb'))).toBe('a\\n\nb');
  });

  test('the stand-ins read the resume argument the SDKs pass: codex `resume <id>`, Claude Code `--resume=<id>`', () => {
    expect(parseCodexArgs(['exec', '--experimental-json', '--cd', '/w', 'resume', 'abc'])).toMatchObject({ resume: 'abc' });
    expect(parseClaudeArgs(['--output-format', 'stream-json', '--input-format', 'stream-json', '--resume=abc'])).toMatchObject({
      resume: 'abc',
      forkSession: false,
    });
    expect(parseClaudeArgs(['--output-format=stream-json', '--input-format=stream-json', '--resume', 'abc', '--fork-session'])).toMatchObject({
      resume: 'abc',
      forkSession: true,
    });
  });
});
