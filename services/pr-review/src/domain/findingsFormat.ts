// The findings format: the review agent's final message carries one fenced ```ars-findings block
// holding a JSON array of findings (@ars/contract, REPORTED_FINDING_SCHEMA). parseFindings reads it
// back; whatever is wrong is listed as a problem, never thrown.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import {
  FINDINGS_FENCE,
  FINDING_SEVERITIES,
  MAX_FINDINGS,
  MAX_FINDING_MESSAGE_LENGTH,
  MAX_FINDING_PATH_LENGTH,
  REPORTED_FINDING_SCHEMA,
  type FindingSeverity,
  type ReportedFinding,
} from '@ars/contract';

/** A finding as read from the block: its path normalized, `endLine` always set (≥ `line`). */
export interface Finding {
  path: string;
  line: number;
  endLine: number;
  severity: FindingSeverity;
  title?: string;
  message: string;
  ruleId?: string;
  anchor?: string;
}

export interface ParsedFindings {
  /**
   * The block was there and read (its findings may still be refused one by one). False when there is
   * no block, or it is too long, not JSON or not an array: the answer says nothing about the code, so
   * nothing may be concluded from it (above all, no earlier finding is fixed by it).
   */
  readable: boolean;
  findings: Finding[];
  /** One sentence per thing that was wrong (a block missing or malformed, a finding refused). */
  problems: string[];
}

/** The longest block read (a hundred findings at their bounds fit several times). */
export const MAX_FINDINGS_BLOCK_LENGTH = 1_000_000;

/** What a review prompt appends so the agent answers in the findings format. */
export const FINDINGS_FORMAT_INSTRUCTIONS = [
  'When you are done, end your final message with exactly one fenced block in this format',
  `(the info string \`${FINDINGS_FENCE}\`, a JSON array, \`[]\` when you found nothing):`,
  '',
  '```' + FINDINGS_FENCE,
  '[',
  '  {"path": "src/app.ts", "line": 42, "endLine": 44, "severity": "high", "title": "Unchecked input",',
  '   "message": "req.body.id reaches the query unvalidated.", "ruleId": "sql-injection", "anchor": "db.query(req.body.id)"}',
  ']',
  '```',
  '',
  '- `path`: the file, relative to the repository root; `line`/`endLine`: 1-based lines of the file as it is now (`endLine` optional).',
  `- \`severity\`: one of ${FINDING_SEVERITIES.join(', ')}.`,
  `- \`message\` (required, at most ${MAX_FINDING_MESSAGE_LENGTH} characters), \`title\`, \`ruleId\` (a short stable name of the kind of problem) and \`anchor\` (the code the finding points at) are strings.`,
  `- At most ${MAX_FINDINGS} findings; only the last \`${FINDINGS_FENCE}\` block of the message is read.`,
].join('\n');

// Compiled on first use: a start of pr-review (or of a test system) compiles nothing it does not serve.
let findingValidator: ValidateFunction<ReportedFinding> | undefined;
const compiledFindingValidator = (): ValidateFunction<ReportedFinding> =>
  (findingValidator ??= new Ajv({ allErrors: true, strict: false }).compile<ReportedFinding>(REPORTED_FINDING_SCHEMA));

/** `findings[3].severity must be equal to one of the allowed values` (ajv's sentence, our path). */
function describeError(index: number, error: ErrorObject): string {
  const at = `findings[${index}]${error.instancePath.replace(/\//g, '.')}`;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required') return `${at}.${String(params.missingProperty)} is required`;
  if (error.keyword === 'additionalProperties') return `${at}.${String(params.additionalProperty)} is not allowed`;
  if (error.keyword === 'enum') return `${at} must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`;
  return `${at} ${error.message ?? 'is invalid'}`;
}

/**
 * A path inside the repository: `\` read as `/`, `./`, empty and `.` segments and leading `/`
 * dropped; null when it climbs out (`..`), holds a NUL or ends up empty.
 */
export function normalizeFindingPath(path: string): string | null {
  if (path.includes('\0')) return null;
  const segments = path
    .replace(/\\/g, '/')
    .split('/')
    .filter((s) => s !== '' && s !== '.');
  if (segments.length === 0 || segments.includes('..')) return null;
  const normalized = segments.join('/');
  return normalized.length > MAX_FINDING_PATH_LENGTH ? null : normalized;
}

interface Block {
  body: string;
  /** The block was opened but never closed. */
  unclosed: boolean;
}

/** Every ```ars-findings block (``` or ~~~, 3 or more, closed by the same fence or the end of the message). */
function findBlocks(message: string): Block[] {
  const blocks: Block[] = [];
  const lines = message.split(/\r?\n/);
  const opening = new RegExp(`^[ \\t]{0,3}(\`{3,}|~{3,})[ \\t]*${FINDINGS_FENCE}[ \\t]*$`);
  for (let i = 0; i < lines.length; i += 1) {
    const open = opening.exec(lines[i] as string);
    if (!open) continue;
    const fence = open[1] as string;
    const closing = new RegExp(`^[ \\t]{0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}[ \\t]*$`);
    let end = i + 1;
    while (end < lines.length && !closing.test(lines[end] as string)) end += 1;
    blocks.push({ body: lines.slice(i + 1, end).join('\n'), unclosed: end >= lines.length });
    i = end;
  }
  return blocks;
}

/** Reads one JSON value of the array; a Finding, or the problems that refuse it. */
function readFinding(value: unknown, index: number): Finding | string[] {
  const validateFinding = compiledFindingValidator();
  if (!validateFinding(value)) return (validateFinding.errors ?? []).map((e) => describeError(index, e));
  const path = normalizeFindingPath(value.path);
  if (path === null) return [`findings[${index}].path must be a file inside the repository (no "..")`];
  const endLine = value.endLine ?? value.line;
  if (endLine < value.line) return [`findings[${index}].endLine must not be before line`];
  const finding: Finding = { path, line: value.line, endLine, severity: value.severity, message: value.message.trim() };
  const title = value.title?.trim();
  if (title) finding.title = title;
  const ruleId = value.ruleId?.trim();
  if (ruleId) finding.ruleId = ruleId;
  if (value.anchor !== undefined && value.anchor.trim() !== '') finding.anchor = value.anchor;
  if (finding.message === '') return [`findings[${index}].message must not be blank`];
  return finding;
}

/**
 * The findings of an agent's last message: the last ```ars-findings block, prose around it ignored.
 * Bounded: at most MAX_FINDINGS findings (the rest listed as one problem), each validated alone so
 * one bad finding refuses only itself. Never throws.
 */
export function parseFindings(lastMessage: string | null | undefined): ParsedFindings {
  const problems: string[] = [];
  const blocks = findBlocks(lastMessage ?? '');
  const block = blocks.at(-1);
  if (block === undefined) return { readable: false, findings: [], problems: [`the message has no \`\`\`${FINDINGS_FENCE} block`] };
  if (blocks.length > 1) problems.push(`${blocks.length - 1} earlier ${FINDINGS_FENCE} block(s) ignored: only the last one is read`);
  if (block.unclosed) problems.push(`the ${FINDINGS_FENCE} block is not closed: read to the end of the message`);
  const body = block.body;
  if (body.length > MAX_FINDINGS_BLOCK_LENGTH) {
    return { readable: false, findings: [], problems: [...problems, `the ${FINDINGS_FENCE} block is longer than ${MAX_FINDINGS_BLOCK_LENGTH} characters`] };
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { readable: false, findings: [], problems: [...problems, `the ${FINDINGS_FENCE} block is not JSON: ${reason}`] };
  }
  if (!Array.isArray(value)) return { readable: false, findings: [], problems: [...problems, `the ${FINDINGS_FENCE} block must hold a JSON array`] };
  if (value.length > MAX_FINDINGS) problems.push(`${value.length - MAX_FINDINGS} finding(s) beyond the first ${MAX_FINDINGS} ignored`);
  const findings: Finding[] = [];
  value.slice(0, MAX_FINDINGS).forEach((item: unknown, index) => {
    const read = readFinding(item, index);
    if (Array.isArray(read)) problems.push(...read);
    else findings.push(read);
  });
  return { readable: true, findings, problems };
}
