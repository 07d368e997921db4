// The cost a resumed Claude Code session had already run up, read from its transcript.
//
// Why: Claude Code 2.1.330's `result` `total_cost_usd` is the session's total so far (it restores
// it on `--resume` from the transcript's `cost-state` records), while its `usage` is the turn's.
// A run's usage must be its own turn's, so the cost is counted from the total before the turn.
import { readdir, readFile, stat } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { isRecord } from './adapter.js';

/** Past this a transcript is not read for its cost (the cost then counts whole, as Claude reports it). */
const MAX_TRANSCRIPT_BYTES = 64 * 1024 * 1024;

/** `$CLAUDE_CONFIG_DIR`, else `$HOME/.claude`; null when neither is an absolute path. */
export function claudeConfigDir(env: Record<string, string>): string | null {
  if (env.CLAUDE_CONFIG_DIR && isAbsolute(env.CLAUDE_CONFIG_DIR)) return env.CLAUDE_CONFIG_DIR;
  if (env.HOME && isAbsolute(env.HOME)) return join(env.HOME, '.claude');
  return null;
}

/** The last `cost-state` `totalCostUSD` of transcript lines; null when there is none. */
export function lastCostState(transcript: string): number | null {
  const lines = transcript.split('\n');
  for (let i = lines.length - 1; i >= 0; i -= 1) {
    const line = lines[i] as string;
    if (!line.includes('"cost-state"')) continue;
    try {
      const record: unknown = JSON.parse(line);
      if (isRecord(record) && record.type === 'cost-state' && typeof record.totalCostUSD === 'number') return record.totalCostUSD;
    } catch {
      // A line cut short: look further back.
    }
  }
  return null;
}

/**
 * The session's cost before this turn: the last `cost-state` of its transcript
 * (`<config dir>/projects/<any project folder>/<sessionId>.jsonl`: session ids are unique, so the
 * folder, named after the cwd, need not be worked out). Null when there is none or it cannot be read.
 */
export async function sessionCostSoFar(configDir: string, sessionId: string): Promise<number | null> {
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(sessionId)) return null;
  const projects = join(configDir, 'projects');
  let folders: string[];
  try {
    folders = await readdir(projects);
  } catch {
    return null;
  }
  for (const folder of folders) {
    const path = join(projects, folder, `${sessionId}.jsonl`);
    try {
      const info = await stat(path);
      if (!info.isFile() || info.size > MAX_TRANSCRIPT_BYTES) continue;
      return lastCostState(await readFile(path, 'utf8'));
    } catch {
      // Not in this folder.
    }
  }
  return null;
}

/** The turn's cost from the session's total: what it grew by; the total itself when it did not grow from the baseline (restarted). */
export function turnCost(total: number, baseline: number | null): number {
  return baseline !== null && total >= baseline ? Math.max(0, total - baseline) : total;
}
