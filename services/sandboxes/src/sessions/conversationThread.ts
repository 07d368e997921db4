// A conversation's harness thread across its runs (`POST /runs` `conversationId`): before the harness
// starts, the state the conversation's last run left is written back into this sandbox's HOME and
// the harness resumes the thread; after the run, what the harness keeps of the thread is read back,
// redacted, and stored — so the thread survives the sandbox that made it.
import type { RunRequestedData } from '@ars/bus';
import { redactJsonLines, type KnownSecrets } from '@ars/sanitize';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  MAX_THREAD_STATE_BYTES,
  THREAD_HOME_ROOTS,
  ThreadStateError,
  ThreadTooLargeError,
  collectThreadState,
  restoreThreadState,
  restoredThreadFiles,
  type ThreadFile,
  type ThreadLocation,
} from '../harness/index.js';
import type { LIFECYCLE_EVENTS, LifecycleEventType } from '../lifecycle/vocabulary.js';
import { HomeFilesTooLarge, type AllocatedSandbox, type HomeFiles } from '../providers/provider.js';
import { conversationKey } from '../store/conversationThreads.js';
import type { SessionDeps } from './deps.js';

/** Where the harness runs, as the harness sees it (HOME a local directory, or the provider's, read through HomeFiles). */
export interface ThreadPlace {
  sandbox: AllocatedSandbox;
  /** The sandbox's record: what became of the thread is in its lifecycle (`thread_resumed`, `thread_kept` …). */
  sandboxRecordId: string;
  /** The working directory the harness is started in. */
  cwd: string;
}

/**
 * Why a conversation's run resumed its thread or started a new one, and whether its thread was
 * kept: a follow-up that forgot what came before is explained in its sandbox's lifecycle, not
 * only in a log line.
 */
type ThreadEventType = Extract<LifecycleEventType, `thread_${string}`>;
type DecisionOf<T extends ThreadEventType> = {
  eventType: T;
  decisionCode: (typeof LIFECYCLE_EVENTS)[T]['decisionCodes'][number];
};
type ThreadDecision = { [T in ThreadEventType]: DecisionOf<T> }[ThreadEventType];

async function recordThreadDecision(
  deps: SessionDeps,
  request: RunRequestedData,
  place: ThreadPlace,
  decision: ThreadDecision,
  payload: Record<string, unknown> = {},
): Promise<void> {
  await deps.sandboxRecords
    .event(place.sandboxRecordId, { ...decision, runId: request.runId, payload: { conversationId: request.conversationId, ...payload } })
    .catch((error: unknown) => deps.logger.warn({ err: error, run_id: request.runId, ...decision }, 'thread decision not recorded'));
}

/** A conversation whose thread outgrew what is kept between runs: its run fails, never a silent new thread. */
export class ConversationOverLimit extends Error {
  constructor() {
    super(
      `the conversation's thread is over ${MAX_THREAD_STATE_BYTES} bytes, the most kept between its runs: continue in a new conversation (another conversationId)`,
    );
  }
}

/** Where the harness's HOME is: a local directory, the provider's (read and written through HomeFiles), or out of reach. */
type HomeAccess = { kind: 'local' } | { kind: 'provider'; homeFiles: HomeFiles } | { kind: 'none' };

function homeAccess(deps: SessionDeps, place: ThreadPlace): HomeAccess {
  if (place.sandbox.dir !== null) return { kind: 'local' };
  const homeFiles = deps.provider.homeFiles;
  return homeFiles ? { kind: 'provider', homeFiles } : { kind: 'none' };
}

/**
 * Puts the conversation's thread back under this sandbox's HOME; answers the thread id to resume,
 * or null: a new thread (no conversation, its first run, or a provider that keeps no HOME of its
 * own). Which it was, and why, is recorded in the sandbox's lifecycle.
 */
export async function threadToResume(deps: SessionDeps, request: RunRequestedData, place: ThreadPlace): Promise<string | null> {
  const home = homeAccess(deps, place);
  if (!request.conversationId || home.kind === 'none') return null;
  const kept = await deps.threads.get(request.userId, request.conversationId);
  const startNew = async (decisionCode: DecisionOf<'thread_new'>['decisionCode']): Promise<null> => {
    await recordThreadDecision(deps, request, place, { eventType: 'thread_new', decisionCode });
    return null;
  };
  if (!kept) return startNew('first_run');
  // Runs binds a conversation to one harness and repository; a record of another is not this thread.
  if (kept.harness !== request.harness || kept.repo_id !== request.repoId) return startNew('other_harness_or_repo');
  if (kept.over_limit === true) throw new ConversationOverLimit();
  // Claude Code refuses to resume a session it has no file of (codex starts a new thread): without files, a new thread.
  if (kept.files.length === 0) return startNew('none_kept');
  try {
    if (home.kind === 'local') await restoreThreadState(request.harness, kept.files, { home: place.sandbox.home, cwd: place.cwd });
    else await home.homeFiles.write(place.sandbox, restoredThreadFiles(request.harness, kept.files, place.cwd));
  } catch (error) {
    deps.logger.warn({ err: error, run_id: request.runId }, "the conversation's thread could not be restored: the run starts a new thread");
    return startNew('restore_failed');
  }
  await recordThreadDecision(
    deps,
    request,
    place,
    { eventType: 'thread_resumed', decisionCode: 'restored' },
    { threadId: kept.thread_id, fromRunId: kept.run_id },
  );
  return kept.thread_id;
}

/** Stores what the harness keeps of thread `threadId` after a run of the conversation, every known secret redacted. */
export async function keepThread(deps: SessionDeps, request: RunRequestedData, place: ThreadPlace, threadId: string, secrets: KnownSecrets): Promise<void> {
  const { conversationId } = request;
  const home = homeAccess(deps, place);
  if (!conversationId || home.kind === 'none') return;
  const log = deps.logger.child({ run_id: request.runId });
  let collected: ThreadFile[];
  let overLimit = false;
  try {
    const where = { home: place.sandbox.home, cwd: place.cwd, threadId };
    collected = home.kind === 'local' ? await collectThreadState(request.harness, where) : await collectFromProvider(home.homeFiles, request, place, where);
  } catch (error) {
    if (!(error instanceof ThreadTooLargeError)) {
      if (!(error instanceof ThreadStateError)) throw error;
      log.warn({ err: error }, "the conversation's thread cannot be kept: its next run starts a new thread");
      await recordThreadDecision(deps, request, place, { eventType: 'thread_not_kept', decisionCode: 'unreadable' }, { threadId });
      return;
    }
    // Recorded, so that the next run says why it cannot go on rather than starting over unasked.
    log.warn({ err: error, limit: MAX_THREAD_STATE_BYTES }, "the conversation's thread outgrew what is kept: its next run fails, saying so");
    collected = [];
    overLimit = true;
  }
  const files = redactedFiles(collected, secrets);
  const bytes = files.reduce((sum, file) => sum + Buffer.byteLength(file.path) + Buffer.byteLength(file.content), 0);
  if (files.length === 0 && !overLimit) log.warn({ thread_id: threadId }, 'the harness left no state of its thread: the next run starts a new thread');
  try {
    await deps.threads.save({
      ...(overLimit ? { over_limit: true } : {}),
      _id: conversationKey(request.userId, conversationId),
      userId: request.userId,
      conversationId,
      harness: request.harness,
      repo_id: request.repoId,
      thread_id: threadId,
      files,
      bytes,
      run_id: request.runId,
      updated_at: new Date(),
    });
  } catch (error) {
    await recordThreadDecision(deps, request, place, { eventType: 'thread_not_kept', decisionCode: 'store_failed' }, { threadId });
    throw error;
  }
  const decision: ThreadDecision =
    files.length > 0 || overLimit
      ? { eventType: 'thread_kept', decisionCode: overLimit ? 'over_limit' : 'kept' }
      : { eventType: 'thread_not_kept', decisionCode: 'no_state' };
  await recordThreadDecision(deps, request, place, decision, { threadId, files: files.length, bytes });
}

/** collectThreadState on a local copy of the thread folders of a HOME that is the provider's (a Pod's). */
async function collectFromProvider(homeFiles: HomeFiles, request: RunRequestedData, place: ThreadPlace, where: ThreadLocation): Promise<ThreadFile[]> {
  const copy = await mkdtemp(join(tmpdir(), 'ars-thread-'));
  try {
    try {
      await homeFiles.read(place.sandbox, [THREAD_HOME_ROOTS[request.harness]], copy, MAX_THREAD_STATE_BYTES);
    } catch (error) {
      if (error instanceof HomeFilesTooLarge) throw new ThreadTooLargeError(error.message);
      throw error;
    }
    return await collectThreadState(request.harness, { ...where, home: copy });
  } finally {
    await rm(copy, { recursive: true, force: true });
  }
}

/**
 * Both CLIs keep a thread as JSON Lines, which they read back: each line is redacted on its own and
 * a JSON line stays JSON (its values redacted, never its syntax), so a secret never spans two lines
 * and a redaction never breaks the thread it was to keep.
 */
function redactedFiles(files: ThreadFile[], secrets: KnownSecrets): ThreadFile[] {
  return files.map((file) => ({ path: file.path, content: redactJsonLines(file.content, { knownSecrets: secrets }) }));
}
