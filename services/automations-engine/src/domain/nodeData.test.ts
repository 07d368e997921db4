import { compileInputSchema, nodeDataProblems } from './nodeData.js';

describe('start data is {inputSchema?}, a JSON Schema that compiles', () => {
  it('no inputSchema, and an object schema, are valid', () => {
    expect(nodeDataProblems('start', {})).toEqual([]);
    expect(nodeDataProblems('start', { inputSchema: { type: 'object', required: ['issue'], properties: { issue: { type: 'integer' } } } })).toEqual([]);
  });

  it('an inputSchema that is not an object, or does not compile, is refused', () => {
    expect(nodeDataProblems('start', { inputSchema: 'object' })).toEqual(['data.inputSchema must be an object']);
    expect(nodeDataProblems('start', { inputSchema: { type: 'thing' } })).toEqual([expect.stringMatching(/^data\.inputSchema is not a valid JSON Schema: /)]);
  });

  it('an inputSchema with $id is refused (ajv would register it for every automation)', () => {
    expect(nodeDataProblems('start', { inputSchema: { $id: 'https://example.com/s', type: 'object' } })).toEqual([
      'data.inputSchema is not a valid JSON Schema: $id is not supported in an input schema',
    ]);
  });

  it('local $ref within an inputSchema works, and compiling the same schema twice gives two validators', () => {
    const schema = { type: 'object', properties: { a: { $ref: '#/definitions/n' } }, definitions: { n: { type: 'integer' } } };
    const first = compileInputSchema(schema);
    const second = compileInputSchema(schema);
    if (!first.ok || !second.ok) throw new Error('did not compile');
    expect(first.validate({ a: 1 })).toBe(true);
    expect(second.validate({ a: 'x' })).toBe(false);
  });

  it('a compiled inputSchema checks a trigger input', () => {
    const compiled = compileInputSchema({ type: 'object', required: ['issue'] });
    if (!compiled.ok) throw new Error(compiled.message);
    expect(compiled.validate({ issue: 1 })).toBe(true);
    expect(compiled.validate({})).toBe(false);
  });
});

describe('agent data is {agentId, prompt?, modelId? string or null, harness? codex or claude-code}', () => {
  it('a full and a minimal agent are valid', () => {
    expect(nodeDataProblems('agent', { agentId: 'a1', prompt: 'Fix {{ input.issue }}', modelId: null, harness: 'claude-code' })).toEqual([]);
    expect(nodeDataProblems('agent', { agentId: 'a1' })).toEqual([]);
  });

  it('a missing agentId, an unknown harness, a numeric modelId and an unknown key are each named', () => {
    expect(nodeDataProblems('agent', { harness: 'gemini', modelId: 3, model: 'x' })).toEqual([
      'data.agentId is required',
      'data.model is not allowed',
      'data.modelId must be a string or null',
      'data.harness must be one of codex, claude-code',
    ]);
  });

  it('a prompt longer than 100,000 characters is refused', () => {
    expect(nodeDataProblems('agent', { agentId: 'a', prompt: 'x'.repeat(100_001) })).toEqual(['data.prompt must be at most 100000 characters']);
  });
});

describe('condition data is {expression}', () => {
  it('an expression is required and must be a non-empty string', () => {
    expect(nodeDataProblems('condition', { expression: 'input.ok' })).toEqual([]);
    expect(nodeDataProblems('condition', {})).toEqual(['data.expression is required']);
    expect(nodeDataProblems('condition', { expression: '' })).toEqual(['data.expression must not be empty']);
  });
});

describe('parallel and end data are {}', () => {
  it.each(['parallel', 'end'] as const)('%s refuses any key', (type) => {
    expect(nodeDataProblems(type, {})).toEqual([]);
    expect(nodeDataProblems(type, { label: 'x' })).toEqual(['data.label is not allowed']);
  });
});

describe('join data is {mode?: all or any}', () => {
  it('all, any and absent are valid; anything else is refused', () => {
    expect(nodeDataProblems('join', {})).toEqual([]);
    expect(nodeDataProblems('join', { mode: 'any' })).toEqual([]);
    expect(nodeDataProblems('join', { mode: 'first' })).toEqual(['data.mode must be one of all, any']);
  });
});

describe('delay data is {seconds} from 1 to 2,592,000', () => {
  it.each([1, 2_592_000, 1.5])('%p seconds is valid', (seconds) => {
    expect(nodeDataProblems('delay', { seconds })).toEqual([]);
  });

  it('0, more than 30 days and a string are refused', () => {
    expect(nodeDataProblems('delay', { seconds: 0 })).toEqual(['data.seconds must be at least 1']);
    expect(nodeDataProblems('delay', { seconds: 2_592_001 })).toEqual(['data.seconds must be at most 2592000']);
    expect(nodeDataProblems('delay', { seconds: '60' })).toEqual(['data.seconds must be a finite number']);
  });
});

describe('await_event data is {event, match?, timeoutSeconds} with timeoutSeconds from 1 to 2,592,000', () => {
  it('a full and a minimal wait are valid', () => {
    expect(nodeDataProblems('await_event', { event: 'deploy.done', match: 'event.data.ok', timeoutSeconds: 3600 })).toEqual([]);
    expect(nodeDataProblems('await_event', { event: 'deploy.done', timeoutSeconds: 1 })).toEqual([]);
  });

  it('a missing event and timeout, and an out-of-range timeout, are refused', () => {
    expect(nodeDataProblems('await_event', {})).toEqual(['data.event is required', 'data.timeoutSeconds is required']);
    expect(nodeDataProblems('await_event', { event: 'e', timeoutSeconds: 2_592_001 })).toEqual(['data.timeoutSeconds must be at most 2592000']);
  });
});

describe('set_variable data is {name, value} with name an identifier', () => {
  it('an identifier name is valid', () => {
    expect(nodeDataProblems('set_variable', { name: 'attempt_2', value: '1' })).toEqual([]);
  });

  it.each(['2x', 'a-b', '', 'a'.repeat(65)])('name %p is refused', (name) => {
    expect(nodeDataProblems('set_variable', { name, value: '1' })).toEqual(['data.name has an invalid format']);
  });

  it.each(['in', 'true', 'false', 'null'])('name %p is refused: vars.%s would not parse', (name) => {
    expect(nodeDataProblems('set_variable', { name, value: '1' })).toEqual([
      'data.name must not be one of in, true, false, null (vars.<name> would not parse)',
    ]);
  });
});

describe('data that is not an object is refused for every type', () => {
  it('names data itself', () => {
    expect(nodeDataProblems('end', null)).toEqual(['data must be an object']);
  });
});
