import { isValidBranchName } from '@ars/git-refs';
import { idempotencyKeyProblem, requestHash } from '@ars/idempotency';
import { generatedWorkingBranch } from './workingBranch.js';
import { RUN_STATUSES, type RunStatus } from '@ars/contract';
import { nextStatus } from './runStatus.js';
import { runEventId, seqOfRunEventId } from './runView.js';
import { conversationMismatch, liveRunHeldMessage, workspaceSessionMismatch } from './followUps.js';

describe('run status: pending → streaming on the first agent event → success / failed / cancelled', () => {
  test('the first agent event moves pending to streaming; later ones change nothing', () => {
    expect(nextStatus('pending', { kind: 'agent_event' })).toBe('streaming');
    expect(nextStatus('streaming', { kind: 'agent_event' })).toBeNull();
  });
  test.each(['success', 'failed', 'cancelled'] as const)('a live run becomes %s when its sandbox says so', (status) => {
    expect(nextStatus('pending', { kind: 'finished', status })).toBe(status);
    expect(nextStatus('streaming', { kind: 'finished', status })).toBe(status);
  });
  test('a terminal run never moves again', () => {
    for (const terminal of ['success', 'failed', 'cancelled'] as RunStatus[]) {
      expect(nextStatus(terminal, { kind: 'agent_event' })).toBeNull();
      for (const status of ['success', 'failed', 'cancelled'] as const) expect(nextStatus(terminal, { kind: 'finished', status })).toBeNull();
    }
  });
  test('the statuses are exactly the contract’s', () => {
    expect(RUN_STATUSES).toEqual(['pending', 'streaming', 'success', 'failed', 'cancelled']);
  });
});

describe('Idempotency-Key is required and at most 200 characters', () => {
  test('missing or empty is refused as required', () => {
    expect(idempotencyKeyProblem(undefined)).toContain('required');
    expect(idempotencyKeyProblem('')).toContain('required');
  });
  test('200 characters pass; 201 do not', () => {
    expect(idempotencyKeyProblem('k'.repeat(200))).toBeNull();
    expect(idempotencyKeyProblem('k'.repeat(201))).toContain('at most 200');
  });
});

describe('the body hash ignores whitespace and key order (RFC 8785 canonical JSON)', () => {
  test('same content in another key order hashes the same', () => {
    expect(requestHash({ repoId: 'r', prompt: 'p', branch: { b: 1, a: 2 } })).toBe(requestHash({ branch: { a: 2, b: 1 }, prompt: 'p', repoId: 'r' }));
  });
  test('a different value hashes differently', () => {
    expect(requestHash({ repoId: 'r', prompt: 'p' })).not.toBe(requestHash({ repoId: 'r', prompt: 'q' }));
  });
  test('numbers are canonical (1.0 and 1 are the same JSON number)', () => {
    expect(requestHash(JSON.parse('{"n": 1.0}'))).toBe(requestHash({ n: 1 }));
  });
});

describe('createBranch without workingBranch generates a deterministic name from the key and the request', () => {
  test('same key and body → same name; another key → another name; always a valid ref', () => {
    const hash = requestHash({ repoId: 'r', prompt: 'p', createBranch: true });
    const name = generatedWorkingBranch('key-1', hash);
    expect(generatedWorkingBranch('key-1', hash)).toBe(name);
    expect(generatedWorkingBranch('key-2', hash)).not.toBe(name);
    expect(isValidBranchName(name)).toBe(true);
  });
});

describe('a conversation belongs to one repository and one harness, a workspace session to one repository: the 409 says so', () => {
  test('same repository and harness: no conflict', () => {
    expect(conversationMismatch('c1', { repoId: 'repo_x', harness: 'codex' }, { repoId: 'repo_x', harness: 'codex' })).toBeNull();
    expect(workspaceSessionMismatch('w1', { repoId: 'repo_x' }, { repoId: 'repo_x' })).toBeNull();
  });
  test('another repository', () => {
    expect(conversationMismatch('c1', { repoId: 'repo_x', harness: 'codex' }, { repoId: 'repo_y', harness: 'codex' })).toBe(
      'conversation "c1" belongs to repository repo_x with harness codex; start a new conversation for repo_y',
    );
    expect(workspaceSessionMismatch('w1', { repoId: 'repo_x' }, { repoId: 'repo_y' })).toBe(
      'workspace session "w1" belongs to repository repo_x; start a new workspace session for repo_y',
    );
  });
  test('another harness', () => {
    expect(conversationMismatch('c1', { repoId: 'repo_x', harness: 'codex' }, { repoId: 'repo_x', harness: 'claude-code' })).toBe(
      'conversation "c1" belongs to repository repo_x with harness codex; start a new conversation for repo_x with harness claude-code',
    );
  });
  test('the live-run message names the run holding it', () => {
    expect(liveRunHeldMessage('conversationId', 'c1', 'run-1')).toBe('conversation "c1" has a live run (run-1): wait until it ends or cancel it');
    expect(liveRunHeldMessage('workspaceSessionId', 'w1', 'run-2')).toBe('workspace session "w1" has a live run (run-2): wait until it ends or cancel it');
  });
});

describe("a run event's id names its run and its seq: the seq is read back from an id of the run's own form only", () => {
  test('an id made by runEventId gives its seq back', () => {
    for (const seq of [0, 1, 42, 123_456_789]) expect(seqOfRunEventId('run_a', runEventId('run_a', seq))).toBe(seq);
  });

  test("another run's event id, another text, or a seq not written as runEventId writes it, gives nothing", () => {
    expect(seqOfRunEventId('run_a', runEventId('run_b', 3))).toBeUndefined();
    expect(seqOfRunEventId('run_a', runEventId('run_aa', 3))).toBeUndefined();
    for (const id of [
      'not-an-event',
      'run_a:event:',
      'run_a:event:-1',
      'run_a:event:01',
      'run_a:event:1.5',
      'run_a:event:1e3',
      'run_a:event: 1',
      'run_a:event:9999999999999999',
    ]) {
      expect(seqOfRunEventId('run_a', id)).toBeUndefined();
    }
  });
});
