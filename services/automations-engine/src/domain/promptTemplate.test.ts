import { ExpressionError, type ExpressionContext } from './expressions.js';
import { parsePromptTemplate, promptTemplateProblems, renderPromptTemplate } from './promptTemplate.js';

const context: ExpressionContext = {
  input: { issue: 42, title: 'Login fails' },
  vars: { labels: ['bug', 'ui'], note: null },
  nodes: {},
  run: { id: 'run-1', repoId: 'repo-1' },
};

describe('a prompt splits into text and {{ <CEL> }} interpolations', () => {
  it('text around interpolations is kept as is, expressions trimmed', () => {
    expect(parsePromptTemplate('Fix #{{ input.issue }}: {{input.title}}.')).toEqual({
      ok: true,
      parts: [{ text: 'Fix #' }, { expression: 'input.issue' }, { text: ': ' }, { expression: 'input.title' }, { text: '.' }],
    });
  });

  it('a prompt without interpolations is one text part, an empty prompt none', () => {
    expect(parsePromptTemplate('Just do it }}')).toEqual({ ok: true, parts: [{ text: 'Just do it }}' }] });
    expect(parsePromptTemplate('')).toEqual({ ok: true, parts: [] });
  });
});

describe('an unterminated {{ or an empty {{ }} is a problem', () => {
  it('unterminated', () => {
    expect(parsePromptTemplate('Fix {{ input.issue')).toEqual({ ok: false, problem: 'prompt has an unterminated {{ at character 4' });
  });

  it('empty', () => {
    expect(promptTemplateProblems('a {{  }} b', { event: false })).toEqual(['prompt has an empty {{ }} at character 2']);
  });
});

describe('each interpolation is checked in the scope of its node', () => {
  it('valid expressions give no problem; every invalid one is listed', () => {
    expect(promptTemplateProblems('{{ input.issue }} {{ vars.labels }}', { event: false })).toEqual([]);
    expect(promptTemplateProblems('{{ event.name }} {{ nope }} {{ input.title.matches("x") }}', { event: false })).toEqual([
      expect.stringContaining('Unknown variable: event'),
      expect.stringContaining('Unknown variable: nope'),
      expect.stringContaining('matches() is not available'),
    ]);
    expect(promptTemplateProblems('{{ event.name }}', { event: true })).toEqual([]);
  });
});

describe('rendering puts strings as they are and other values as JSON', () => {
  it('strings, numbers, lists and null', () => {
    expect(renderPromptTemplate('#{{ input.issue }} {{ input.title }} {{ vars.labels }} {{ vars.note }}', context)).toBe('#42 Login fails ["bug","ui"] null');
  });

  it('a failing interpolation throws an error naming its expression', () => {
    expect(() => renderPromptTemplate('{{ input.missing }}', context)).toThrow(ExpressionError);
    expect(() => renderPromptTemplate('{{ input.missing }}', context)).toThrow(/expression "input.missing"/);
  });
});
