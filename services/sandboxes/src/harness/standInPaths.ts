// Where the stand-in CLIs are: the development default of CODEX_PATH / CLAUDE_CODE_PATH (unset).
// They are development infrastructure (deploy/local/harness-stand-ins), which production code must
// not import, so the service knows them only as files of this repository, at paths computed from
// this module's own place (the same from src/ and dist/). A deployment without that folder sets
// CODEX_PATH / CLAUDE_CODE_PATH (production requires it).
import { fileURLToPath } from 'node:url';
import type { HarnessName } from '@ars/harnesses';

/** The repository root: this file is services/sandboxes/{src,dist}/harness/standInPaths.{ts,js}. */
const REPOSITORY = new URL('../../../../', import.meta.url);
const STAND_INS = new URL('deploy/local/harness-stand-ins/', REPOSITORY);

const LAUNCHERS: Record<HarnessName, string> = {
  codex: 'codex-standin.mjs',
  'claude-code': 'claude-code-standin.mjs',
};

/** Absolute path of the stand-in executable of a harness (needs the stand-ins built: it runs their dist/). */
export function standInExecutable(harness: HarnessName): string {
  return fileURLToPath(new URL(`bin/${LAUNCHERS[harness]}`, STAND_INS));
}

/** The model stand-in's MCP tool server (HARNESS_STAND_IN_TOOLS): a node script, and what it needs bound. */
export interface StandInToolServerFiles {
  /** Its launcher, run by node: `<script> --prompt-file <file>` offers the tools the prompt's `@tool` lines name. */
  script: string;
  files: string[];
}

const MODEL_STAND_IN = new URL('deploy/local/model-stand-in/', REPOSITORY);

/**
 * The model stand-in's tool server: its launcher, its built modules and package.json, and the one
 * package it imports (the stand-ins' directive parser, with the package that one imports), at the
 * node_modules paths node resolves them by. Nothing else of the project.
 */
export function standInToolServer(): StandInToolServerFiles {
  const packageFiles = (root: URL): string[] => [fileURLToPath(new URL('dist', root)), fileURLToPath(new URL('package.json', root))];
  return {
    script: fileURLToPath(new URL('bin/mcp-tool-server.mjs', MODEL_STAND_IN)),
    files: [
      fileURLToPath(new URL('bin/mcp-tool-server.mjs', MODEL_STAND_IN)),
      ...packageFiles(MODEL_STAND_IN),
      ...packageFiles(new URL('node_modules/@ars/harness-stand-ins/', REPOSITORY)),
      ...packageFiles(new URL('node_modules/@ars/harness-thread-files/', REPOSITORY)),
    ],
  };
}

/**
 * The files a stand-in needs to run (bound read-only into an isolated sandbox, each at its own
 * path): its launcher, the built stand-in modules and the package.json that makes them ES modules;
 * the same two of the one package they import, at the node_modules path node resolves it by (a
 * workspace link on the host: the bind takes what it points to, inside it is a plain folder).
 * Nothing else of the project.
 */
export function standInFiles(harness: HarnessName): string[] {
  const threadFiles = new URL('node_modules/@ars/harness-thread-files/', REPOSITORY);
  return [
    standInExecutable(harness),
    fileURLToPath(new URL('dist', STAND_INS)),
    fileURLToPath(new URL('package.json', STAND_INS)),
    fileURLToPath(new URL('dist', threadFiles)),
    fileURLToPath(new URL('package.json', threadFiles)),
  ];
}
