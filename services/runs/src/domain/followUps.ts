import { MAX_FOLLOW_UP_ID_LENGTH, type Harness } from '@ars/contract';
import { tooManyCharacters } from '@ars/http-app';

/**
 * Follow-ups (DESIGN.md, Sandboxes; issue 16): `conversationId` and `workspaceSessionId` are ids the
 * client chooses, per user. One live run at a time per conversation and per workspace session; a
 * conversation belongs to one repository and one harness, a workspace session to one repository.
 * These are the rules' words; the store makes them exact under races.
 */
export type FollowUpField = 'conversationId' | 'workspaceSessionId';

/** What a conversation is bound to by its first run. */
export interface ConversationBinding {
  repoId: string;
  harness: Harness;
}

/** What a workspace session is bound to by its first run. */
export interface WorkspaceSessionBinding {
  repoId: string;
}

/**
 * Why a given follow-up id is refused (400), or null. Null and absent mean "none"; an empty or blank
 * string is refused rather than read as absent: a client that sent one meant an id, and silently
 * starting an unrelated run would lose its thread or working tree. Length in code points, as the prompt.
 */
export function followUpIdProblem(field: FollowUpField, id: string): string | null {
  if (id.trim().length === 0) return `${field} must not be empty or blank (omit it or send null for none)`;
  return tooManyCharacters(field, id, MAX_FOLLOW_UP_ID_LENGTH);
}

const NAMES: Record<FollowUpField, string> = { conversationId: 'conversation', workspaceSessionId: 'workspace session' };

/** 409 message: the run `holderRunId` is live in this conversation or workspace session. */
export function liveRunHeldMessage(field: FollowUpField, id: string, holderRunId: string): string {
  return `${NAMES[field]} ${JSON.stringify(id)} has a live run (${holderRunId}): wait until it ends or cancel it`;
}

/** 409 message when a run names a conversation bound to another repository or harness; null when it fits. */
export function conversationMismatch(conversationId: string, bound: ConversationBinding, asked: ConversationBinding): string | null {
  if (bound.repoId === asked.repoId && bound.harness === asked.harness) return null;
  const wanted = bound.harness === asked.harness ? asked.repoId : `${asked.repoId} with harness ${asked.harness}`;
  return (
    `conversation ${JSON.stringify(conversationId)} belongs to repository ${bound.repoId} with harness ${bound.harness}; ` +
    `start a new conversation for ${wanted}`
  );
}

/** 409 message when a run names a workspace session bound to another repository; null when it fits. */
export function workspaceSessionMismatch(workspaceSessionId: string, bound: WorkspaceSessionBinding, asked: WorkspaceSessionBinding): string | null {
  if (bound.repoId === asked.repoId) return null;
  return (
    `workspace session ${JSON.stringify(workspaceSessionId)} belongs to repository ${bound.repoId}; ` + `start a new workspace session for ${asked.repoId}`
  );
}
