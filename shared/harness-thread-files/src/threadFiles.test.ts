import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  appendClaudePrompt,
  appendCodexPrompt,
  claudeProjectDirName,
  claudeTranscriptPath,
  claudeTranscriptPrompts,
  codexRolloutPath,
  codexRolloutPrompts,
  findCodexRollout,
  isThreadId,
  startCodexRollout,
} from './index.js';

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'thread-files-'));
});
afterEach(() => rm(home, { recursive: true, force: true }));

describe('the layout, as the real CLIs name their files', () => {
  test('a Claude project folder: every character not a letter or digit becomes "-"', () => {
    expect(claudeProjectDirName('/work/my repo_1.x')).toBe('-work-my-repo-1-x');
    expect(claudeTranscriptPath('/h/.claude', '/w', 'abc')).toBe('/h/.claude/projects/-w/abc.jsonl');
  });

  test('a Claude project folder over 200 characters is cut there and suffixed with a hash of the whole path', () => {
    const long = `/${'a'.repeat(250)}`;
    const other = `/${'a'.repeat(249)}b`;
    const name = claudeProjectDirName(long);
    expect(name.startsWith(`-${'a'.repeat(199)}-`)).toBe(true);
    expect(name).toMatch(/^-a{199}-[0-9a-z]+$/);
    // Same first 200 characters, other paths: other folders.
    expect(claudeProjectDirName(other)).not.toBe(name);
  });

  test('a codex rollout path carries the UTC date and the thread id', () => {
    const at = new Date(Date.UTC(2026, 0, 2, 3, 4, 5));
    expect(codexRolloutPath('/h/.codex', 't-1', at)).toBe('/h/.codex/sessions/2026/01/02/rollout-2026-01-02T03-04-05-t-1.jsonl');
  });

  test('thread ids are plain names', () => {
    expect(isThreadId('0199a213-81c0-7800-8aa1-bbab2a035a53')).toBe(true);
    for (const bad of ['', '../x', 'a/b', '-a', 'a b', 'x'.repeat(129)]) expect(isThreadId(bad)).toBe(false);
  });
});

describe('prompt records, written and read back', () => {
  test('a codex rollout is found by its id and gives its prompts back in order', async () => {
    const codexHome = join(home, '.codex');
    const path = codexRolloutPath(codexHome, 'thread-a', new Date());
    await startCodexRollout(path, 'thread-a', '/w', new Date());
    await appendCodexPrompt(path, 'first');
    await appendCodexPrompt(path, 'second\nline');
    expect(await findCodexRollout(codexHome, 'thread-a')).toBe(path);
    expect(await findCodexRollout(codexHome, 'thread-b')).toBeNull();
    expect(await findCodexRollout(codexHome, '../thread-a')).toBeNull();
    expect(await codexRolloutPrompts(path)).toEqual(['first', 'second\nline']);
  });

  test('a Claude transcript gives back the typed prompts only: not meta records, not tool results; a torn last line is skipped', async () => {
    const path = claudeTranscriptPath(join(home, '.claude'), '/w', 's1');
    await appendClaudePrompt(path, 's1', '/w', 'first');
    const meta = { type: 'user', isMeta: true, message: { role: 'user', content: 'injected' } };
    const toolResult = { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'out' }] } };
    const blocks = {
      type: 'user',
      message: {
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
    };
    await appendFile(path, `${[meta, toolResult, blocks].map((r) => JSON.stringify(r)).join('\n')}\n{"type":"us`);
    expect(await claudeTranscriptPrompts(path)).toEqual(['first', 'a\nb']);
  });
});
