// HARNESS_STAND_IN_TOOLS=on (development and tests): the model stand-in's MCP tool server handed to a
// real CLI, offering the tools the run's `@tool` lines name. The server learns them from the prompt,
// which it reads from a file under the sandbox's HOME (outside the working tree, never kept as thread
// state); this service does not read the stand-ins' directives itself.
import { realpath, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HarnessCliSetting } from '../harness/harnessClis.js';
import type { HarnessToolServer } from '../harness/index.js';
import type { AllocatedSandbox } from '../providers/provider.js';

/** The tool server's name as the CLIs know it (the stand-in CLIs report `@tool` under the same one). */
export const STAND_IN_TOOL_SERVER = 'standin';

export interface StandInTools {
  servers: Record<string, HarnessToolServer>;
  /** Host files the sandbox binds read-only for the server. */
  files: string[];
}

/** The tool server for this run, with its prompt file written; null without the setting or outside a local sandbox. */
export async function prepareStandInTools(cli: HarnessCliSetting, sandbox: AllocatedSandbox, prompt: string): Promise<StandInTools | null> {
  if (!cli.standInTools || sandbox.dir === null) return null;
  const dir = join(sandbox.home, '.ars-stand-in-tools');
  await mkdir(dir, { recursive: true });
  const promptFile = join(dir, 'prompt.txt');
  await writeFile(promptFile, prompt, { mode: 0o444 });
  const node = await realpath(process.execPath);
  return {
    servers: { [STAND_IN_TOOL_SERVER]: { command: node, args: [cli.standInTools.script, '--prompt-file', promptFile] } },
    files: cli.standInTools.files,
  };
}
