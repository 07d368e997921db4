import { checkExpression, evaluateExpression, type ExpressionContext, type ExpressionScope } from './expressions.js';

/** A prompt split into literal text and `{{ <CEL> }}` interpolations, in order. */
export type PromptPart = { text: string } | { expression: string };

export type PromptTemplateParse = { ok: true; parts: PromptPart[] } | { ok: false; problem: string };

const OPEN = '{{';
const CLOSE = '}}';

/**
 * Splits a prompt on `{{ … }}`. The first `}}` after a `{{` closes it (a CEL string holding `}}`
 * cannot be interpolated). An unterminated `{{` or an empty `{{ }}` is a problem.
 */
export function parsePromptTemplate(prompt: string): PromptTemplateParse {
  const parts: PromptPart[] = [];
  let cursor = 0;
  while (cursor < prompt.length) {
    const open = prompt.indexOf(OPEN, cursor);
    if (open === -1) break;
    const close = prompt.indexOf(CLOSE, open + OPEN.length);
    if (close === -1) return { ok: false, problem: `prompt has an unterminated {{ at character ${open}` };
    const expression = prompt.slice(open + OPEN.length, close).trim();
    if (expression === '') return { ok: false, problem: `prompt has an empty {{ }} at character ${open}` };
    if (open > cursor) parts.push({ text: prompt.slice(cursor, open) });
    parts.push({ expression });
    cursor = close + CLOSE.length;
  }
  if (cursor < prompt.length) parts.push({ text: prompt.slice(cursor) });
  return { ok: true, parts };
}

/** Every problem of a prompt: its template syntax, then each interpolation's check in `scope`. */
export function promptTemplateProblems(prompt: string, scope: ExpressionScope): string[] {
  const parsed = parsePromptTemplate(prompt);
  if (!parsed.ok) return [parsed.problem];
  return parsed.parts.flatMap((part) => {
    if (!('expression' in part)) return [];
    const checked = checkExpression(part.expression, { expect: 'any', scope });
    return checked.ok ? [] : [checked.message];
  });
}

/**
 * The prompt with every interpolation evaluated: strings as they are, other values as JSON.
 * Throws ExpressionError (naming the expression) on the first failing one; a malformed template
 * throws too (publish refuses those, so a run never meets one).
 */
export function renderPromptTemplate(prompt: string, context: ExpressionContext): string {
  const parsed = parsePromptTemplate(prompt);
  if (!parsed.ok) throw new Error(parsed.problem);
  return parsed.parts
    .map((part) => {
      if ('text' in part) return part.text;
      const value = evaluateExpression(part.expression, context);
      return typeof value === 'string' ? value : JSON.stringify(value);
    })
    .join('');
}
