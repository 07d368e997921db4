// A resumed Claude Code session's cost before the turn, read from its transcript's `cost-state`
// records (the record as Claude Code 2.1.330 writes it).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claudeConfigDir, lastCostState, sessionCostSoFar, turnCost } from './claudeTranscript.js';

const SESSION = 'b8a208ea-4763-44b4-baac-4407ab434567';

function costState(total: number): string {
  return JSON.stringify({
    type: 'cost-state',
    sessionId: SESSION,
    totalCostUSD: total,
    totalAPIDuration: 125,
    modelUsage: { 'claude-opus-5-5': { inputTokens: 20, outputTokens: 10, costUSD: total } },
    hasUnknownModelCost: false,
  });
}

test('the last cost-state of the transcript is the cost so far; none: null', () => {
  const transcript = [costState(0.1), '{"type":"user","message":{"content":"cost-state"}}', costState(0.3), '{"type":"last-prompt"}', '{"cost-state" cut'].join(
    '\n',
  );
  expect(lastCostState(transcript)).toBe(0.3);
  expect(lastCostState('{"type":"user"}\n')).toBeNull();
});

test('the turn costs what the total grew by; a total below the baseline (restarted) counts whole', () => {
  expect(turnCost(0.75, 0.25)).toBe(0.5);
  expect(turnCost(0.75, null)).toBe(0.75);
  expect(turnCost(0.1, 0.25)).toBe(0.1);
});

describe('sessionCostSoFar', () => {
  let home: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'ars-transcript-'));
  });
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  test('found in whichever project folder holds the session; CLAUDE_CONFIG_DIR before HOME', async () => {
    const config = claudeConfigDir({ HOME: home });
    expect(config).toBe(join(home, '.claude'));
    expect(claudeConfigDir({ HOME: home, CLAUDE_CONFIG_DIR: '/etc/claude' })).toBe('/etc/claude');
    expect(claudeConfigDir({ HOME: 'relative' })).toBeNull();
    await mkdir(join(home, '.claude/projects/-other'), { recursive: true });
    await mkdir(join(home, '.claude/projects/-var-tmp-tree'), { recursive: true });
    await writeFile(join(home, '.claude/projects/-var-tmp-tree', `${SESSION}.jsonl`), `${costState(0.00028)}\n${costState(0.00056)}\n`);
    expect(await sessionCostSoFar(join(home, '.claude'), SESSION)).toBe(0.00056);
    expect(await sessionCostSoFar(join(home, '.claude'), 'another-session')).toBeNull();
    expect(await sessionCostSoFar(join(home, '.claude'), '../escape')).toBeNull();
    expect(await sessionCostSoFar(join(home, 'missing'), SESSION)).toBeNull();
  });
});
