import { AppError } from '@ars/errors';
import type { InternalStartRunBody } from '@ars/contract';
import { planRun } from './startRunRequest.js';

const context = { repoDefaultBranch: 'trunk', idempotencyKey: 'key-1', bodyHash: 'h'.repeat(64) };
const body = (overrides: Partial<InternalStartRunBody> = {}): InternalStartRunBody => ({ repoId: 'repo_1', prompt: 'fix it', ...overrides });

function badRequest(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('BAD_REQUEST');
    return (error as AppError).message;
  }
  throw new Error('expected BAD_REQUEST');
}

describe('harness defaults to codex and is codex or claude-code', () => {
  test('default', () => expect(planRun(body(), context).harness).toBe('codex'));
  test('claude-code', () => expect(planRun(body({ harness: 'claude-code' }), context).harness).toBe('claude-code'));
  test('anything else is 400 naming harness', () => {
    expect(badRequest(() => planRun(body({ harness: 'gpt' as never }), context))).toContain('harness');
  });
});

describe("baseBranch defaults to the repository's default branch, else main", () => {
  test('the repository default', () => expect(planRun(body(), context).branch.base).toBe('trunk'));
  test('main when the repository has none', () => expect(planRun(body(), { ...context, repoDefaultBranch: null }).branch.base).toBe('main'));
  test('given', () => expect(planRun(body({ baseBranch: 'release/1' }), context).branch.base).toBe('release/1'));
});

describe('workingBranch defaults to the base; with createBranch a deterministic name is generated; a given one must differ from the base', () => {
  test('defaults to the base branch', () => {
    expect(planRun(body(), context).branch).toEqual({ base: 'trunk', working: 'trunk', createBranch: false });
  });
  test('createBranch without a name generates one from the key and the request, the same each time', () => {
    const first = planRun(body({ createBranch: true }), context).branch.working;
    expect(first).toMatch(/^agent\/run-[0-9a-f]{12}$/);
    expect(planRun(body({ createBranch: true }), context).branch.working).toBe(first);
    expect(planRun(body({ createBranch: true }), { ...context, idempotencyKey: 'key-2' }).branch.working).not.toBe(first);
  });
  test('a given working branch equal to the base is 400', () => {
    expect(badRequest(() => planRun(body({ baseBranch: 'main', workingBranch: 'main' }), context))).toContain('workingBranch must differ');
  });
});

describe('branch names must be valid Git refs', () => {
  test.each(['a..b', '-x', 'has space', 'x.lock', 'a//b', 'HEAD', '@', '--force', 'refs/heads/main'])(
    '%j as base or working branch is 400 naming the field',
    (name) => {
      expect(badRequest(() => planRun(body({ baseBranch: name }), context))).toContain('baseBranch');
      expect(badRequest(() => planRun(body({ workingBranch: name }), context))).toContain('workingBranch');
    },
  );
});

describe('prompt is at most 100,000 characters, counted as code points (an emoji is one)', () => {
  test('100,000 pass; 100,001 do not', () => {
    expect(planRun(body({ prompt: 'p'.repeat(100_000) }), context).prompt).toHaveLength(100_000);
    expect(badRequest(() => planRun(body({ prompt: 'p'.repeat(100_001) }), context))).toBe('prompt must be at most 100000 characters');
  });
  test('100,000 emoji (200,000 UTF-16 units) pass; 100,001 do not', () => {
    expect(planRun(body({ prompt: '😀'.repeat(100_000) }), context).prompt).toHaveLength(200_000);
    expect(badRequest(() => planRun(body({ prompt: '😀'.repeat(100_001) }), context))).toBe('prompt must be at most 100000 characters');
  });
});

describe('rootDirectory is a relative path without traversal', () => {
  test('kept without a trailing slash', () => expect(planRun(body({ rootDirectory: 'packages/api/' }), context).rootDirectory).toBe('packages/api'));
  test('null stays null', () => expect(planRun(body({ rootDirectory: null }), context).rootDirectory).toBeNull());
  test.each(['../x', '/abs', 'a/../../b'])('%j is 400 naming rootDirectory', (path) => {
    expect(badRequest(() => planRun(body({ rootDirectory: path }), context))).toContain('rootDirectory');
  });
});

describe('model (internal callers only) is the harness’s model; without it null, the harness’s default', () => {
  test('kept as given', () => expect(planRun(body({ model: 'gpt-5-codex' }), context).model).toBe('gpt-5-codex'));
  test('absent is null', () => expect(planRun(body(), context).model).toBeNull());
});

describe('conversationId and workspaceSessionId, when given, are 1–200 characters (code points), not blank: else 400 naming the field', () => {
  test.each(['conversationId', 'workspaceSessionId'] as const)('%s: kept; null and absent are none', (field) => {
    expect(planRun(body({ [field]: 'c1' }), context)[field]).toBe('c1');
    expect(planRun(body({ [field]: null }), context)[field]).toBeNull();
    expect(planRun(body(), context)[field]).toBeNull();
  });
  test.each(['conversationId', 'workspaceSessionId'] as const)('%s: empty or blank is 400, not "none"', (field) => {
    expect(badRequest(() => planRun(body({ [field]: '' }), context))).toContain(field);
    expect(badRequest(() => planRun(body({ [field]: '  \t' }), context))).toContain(field);
  });
  test.each(['conversationId', 'workspaceSessionId'] as const)('%s: 200 characters accepted, 201 refused; an emoji is one character', (field) => {
    expect(planRun(body({ [field]: 'c'.repeat(200) }), context)[field]).toHaveLength(200);
    expect(badRequest(() => planRun(body({ [field]: 'c'.repeat(201) }), context))).toBe(`${field} must be at most 200 characters`);
    expect(planRun(body({ [field]: '😀'.repeat(200) }), context)[field]).toBe('😀'.repeat(200));
  });
});
