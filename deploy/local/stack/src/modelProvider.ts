// Which model each real CLI of the stack calls. With nothing said, the model stand-in
// (deploy/local/model-stand-in), started in this process, answers both: `npm start` runs the real
// CLIs with no key. A key or a base URL for a provider sends that harness's calls there instead
// (the README's two lines); the stand-in CLIs (HARNESS_CLIS=stand-in) call no model at all. Where the
// stand-in answers, the sandboxes service hands each real CLI the stand-in's MCP tool server too
// (HARNESS_STAND_IN_TOOLS=on unless set), so that `@tool` plays under the real CLIs.
import { startModelStandIn, type ModelStandIn } from '@ars/model-stand-in';

/** The provider key the services hold where the stand-in answers. */
export const STAND_IN_KEY = 'ars-model-stand-in-key';

/** Which harnesses the model stand-in answers for, from the stack's environment. */
export function modelStandInFor(env: NodeJS.ProcessEnv): { codex: boolean; claudeCode: boolean } {
  if (env.HARNESS_CLIS === 'stand-in') return { codex: false, claudeCode: false };
  return {
    codex: !env.OPENAI_BASE_URL && !env.CODEX_API_KEY,
    claudeCode: !env.ANTHROPIC_BASE_URL && !env.ANTHROPIC_API_KEY,
  };
}

export interface StackModels {
  /** The variables the services get where the stand-in answers: OPENAI_BASE_URL and CODEX_API_KEY, ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY, HARNESS_STAND_IN_TOOLS. */
  env: NodeJS.ProcessEnv;
  /** The running stand-in, when one harness at least calls it. */
  standIn: ModelStandIn | null;
  stop(): Promise<void>;
}

/** Starts the model stand-in when a harness needs it. */
export async function startStackModels(env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<StackModels> {
  const needed = modelStandInFor(env);
  if (!needed.codex && !needed.claudeCode) return { env: {}, standIn: null, stop: async () => undefined };
  const standIn = await startModelStandIn({ port: 0 });
  const answered = [needed.codex ? 'codex' : null, needed.claudeCode ? 'claude-code' : null].filter((name) => name !== null);
  log(`[stack] model stand-in at ${standIn.url} answers ${answered.join(' and ')} (no provider key or base URL given)`);
  return {
    env: {
      // The model gateway puts the key on each call; the stand-in wants one, as the real APIs do (any is taken).
      ...(needed.codex ? { OPENAI_BASE_URL: standIn.openaiBaseUrl, CODEX_API_KEY: STAND_IN_KEY } : {}),
      ...(needed.claudeCode ? { ANTHROPIC_BASE_URL: standIn.url, ANTHROPIC_API_KEY: STAND_IN_KEY } : {}),
      HARNESS_STAND_IN_TOOLS: env.HARNESS_STAND_IN_TOOLS ?? 'on',
    },
    standIn,
    stop: () => standIn.close(),
  };
}
