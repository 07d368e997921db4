import { jsonPath } from './schemaMessages.js';

describe('an ajv instance path reads as a dotted JSON path under its root', () => {
  it('indexes in brackets, keys after dots, escapes undone', () => {
    expect(jsonPath('graph', '')).toBe('graph');
    expect(jsonPath('graph', '/nodes/2/position')).toBe('graph.nodes[2].position');
    expect(jsonPath('data', '/a~1b/c~0d')).toBe('data.a/b.c~d');
  });
});
