import { EXPRESSION_LIMITS, ExpressionError, checkExpression, evaluateCondition, evaluateExpression, type ExpressionContext } from './expressions.js';

const noEvent = { event: false };
const afterEvent = { event: true };

const context: ExpressionContext = {
  input: { count: 5, ratio: 0.5, labels: ['bug', 'ui'], title: 'Fix the login' },
  vars: { attempts: 2, note: 'hi' },
  nodes: { review: { status: 'success', output: { runId: 'r1', findings: [{ severity: 'high' }] } } },
  run: { id: 'run-1', repoId: 'repo-1' },
};

describe('expressions read input, vars, nodes and run, and event only where it is in scope', () => {
  it.each([
    'input.count > 3',
    '"bug" in input.labels && input.title.startsWith("Fix")',
    'vars.attempts < 3',
    'nodes.review.status == "success"',
    'nodes.review.output.findings.exists(f, f.severity == "high")',
    'run.repoId == "repo-1"',
  ])('%s checks as a boolean without event', (expression) => {
    expect(checkExpression(expression, { expect: 'bool', scope: noEvent })).toEqual({ ok: true, type: 'bool' });
  });

  it('event is an unknown variable outside an await_event scope and known inside it', () => {
    const outside = checkExpression('event.name == "deploy"', { expect: 'bool', scope: noEvent });
    expect(outside).toEqual({ ok: false, message: expect.stringContaining('Unknown variable: event') });
    expect(checkExpression('event.data.env == "prod"', { expect: 'bool', scope: afterEvent })).toEqual({ ok: true, type: 'bool' });
  });

  it('an unknown variable and a syntax error are refused naming the expression', () => {
    expect(checkExpression('inputs.count > 1', { expect: 'any', scope: noEvent })).toEqual({
      ok: false,
      message: expect.stringMatching(/^expression "inputs.count > 1": .*Unknown variable: inputs/),
    });
    expect(checkExpression('input.count >', { expect: 'any', scope: noEvent })).toEqual({
      ok: false,
      message: expect.stringMatching(/^expression "input.count >": /),
    });
  });

  it('an empty expression is refused', () => {
    expect(checkExpression('  ', { expect: 'any', scope: noEvent })).toEqual({ ok: false, message: 'expression "  ": is empty' });
  });
});

describe('a boolean expression must type-check to bool (or dyn, checked when evaluated)', () => {
  it('a string-typed expression is refused where a boolean is expected', () => {
    expect(checkExpression('run.id', { expect: 'bool', scope: noEvent })).toEqual({
      ok: false,
      message: 'expression "run.id": must be a boolean, is string',
    });
  });

  it('a dyn expression is accepted as a boolean and any type is accepted for a value', () => {
    expect(checkExpression('input.approved', { expect: 'bool', scope: noEvent })).toEqual({ ok: true, type: 'dyn' });
    expect(checkExpression('run.id + "-x"', { expect: 'any', scope: noEvent })).toEqual({ ok: true, type: 'string' });
  });

  it('a condition that gives a non-boolean fails when evaluated', () => {
    expect(() => evaluateCondition('input.title', context)).toThrow('expression "input.title": must give a boolean, gave "Fix the login"');
    expect(evaluateCondition('input.count == 5', context)).toBe(true);
  });
});

describe('matches() is refused at check time (a user regular expression can backtrack for ever)', () => {
  it('as a method and as a function, at check and at evaluation', () => {
    const method = checkExpression('input.title.matches("(a+)+$")', { expect: 'bool', scope: noEvent });
    expect(method).toEqual({ ok: false, message: expect.stringContaining('matches() is not available') });
    const nested = checkExpression('input.labels.exists(l, l.matches("x"))', { expect: 'bool', scope: noEvent });
    expect(nested).toEqual({ ok: false, message: expect.stringContaining('matches() is not available') });
    expect(() => evaluateExpression('"aaa".matches("a+")', context)).toThrow(ExpressionError);
  });
});

describe('parse limits bound an expression (length, AST nodes, depth)', () => {
  it(`more than ${EXPRESSION_LIMITS.maxAstNodes} AST nodes is refused`, () => {
    const expression = '1' + ' + 1'.repeat(EXPRESSION_LIMITS.maxAstNodes);
    expect(expression.length).toBeLessThan(EXPRESSION_LIMITS.maxLength);
    expect(checkExpression(expression, { expect: 'any', scope: noEvent })).toEqual({
      ok: false,
      message: expect.stringContaining(`Exceeded maxAstNodes (${EXPRESSION_LIMITS.maxAstNodes})`),
    });
  });

  it(`nesting deeper than ${EXPRESSION_LIMITS.maxDepth} is refused`, () => {
    const depth = EXPRESSION_LIMITS.maxDepth + 1;
    const expression = '('.repeat(depth) + '1' + ')'.repeat(depth);
    expect(checkExpression(expression, { expect: 'any', scope: noEvent })).toEqual({
      ok: false,
      message: expect.stringContaining(`Exceeded maxDepth (${EXPRESSION_LIMITS.maxDepth})`),
    });
  });

  it(`an expression longer than ${EXPRESSION_LIMITS.maxLength} characters is refused`, () => {
    const expression = `"${'a'.repeat(EXPRESSION_LIMITS.maxLength)}"`;
    expect(checkExpression(expression, { expect: 'any', scope: noEvent })).toEqual({
      ok: false,
      message: expect.stringContaining(`is longer than ${EXPRESSION_LIMITS.maxLength} characters`),
    });
  });
});

describe('evaluation gives JSON: integers as numbers, JSON integers read as CEL ints', () => {
  it('integer arithmetic on input works and gives a number', () => {
    expect(evaluateExpression('input.count + 1', context)).toBe(6);
    expect(evaluateExpression('size(input.labels) == 2', context)).toBe(true);
    expect(evaluateExpression('input.ratio * 2.0', context)).toBe(1);
  });

  it('lists and maps come back as JSON arrays and objects', () => {
    expect(evaluateExpression('input.labels.map(l, l + "!")', context)).toEqual(['bug!', 'ui!']);
    expect(evaluateExpression('{"n": vars.attempts, "tags": [1, 2]}', context)).toEqual({ n: 2, tags: [1, 2] });
  });

  it('an integer outside the safe range is an evaluation error', () => {
    expect(() => evaluateExpression('9007199254740993', context)).toThrow('outside the safe integer range');
  });

  it('event is read when the context holds it', () => {
    const withEvent = { ...context, event: { name: 'deploy', data: { env: 'prod' }, receivedAt: '2026-01-01T00:00:00.000Z' } };
    expect(evaluateExpression('event.data.env', withEvent)).toBe('prod');
  });
});

describe('a missing key or a type error at evaluation is an error naming the expression', () => {
  it('a missing key', () => {
    expect(() => evaluateExpression('input.missing == 1', context)).toThrow(/^expression "input.missing == 1": .*No such key: missing/);
  });

  it('a type error', () => {
    expect(() => evaluateExpression('input.title + 1', context)).toThrow(/^expression "input.title \+ 1": /);
  });

  it('has() tests for a key without failing', () => {
    expect(evaluateExpression('has(input.missing)', context)).toBe(false);
  });
});
