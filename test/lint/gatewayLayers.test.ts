// The gateway in layers (services/gateway/README.md, Layout): each product file belongs to one, and
// imports at run time only from its own layer or those below it. Type-only imports are erased and
// not counted (deps.ts, the resources every layer is handed, names the types of all of them).
import { join, relative } from 'node:path';
import { importGraph, root } from './importGraph.js';

const GATEWAY = 'services/gateway/src';

/** Lowest first. A folder or a file directly under src/. */
const LAYERS: readonly { name: string; parts: readonly string[] }[] = [
  { name: 'rules and storage', parts: ['domain', 'store', 'config.ts', 'peers.ts', 'version.ts', 'deps.ts'] },
  { name: 'authentication', parts: ['auth'] },
  { name: 'route handlers', parts: ['handlers'] },
  { name: 'adapters', parts: ['http', 'mcp', 'oauth', 'signIn', 'settings', 'github'] },
  { name: 'composition', parts: ['gateway.ts', 'main.ts', 'index.ts', 'writeOpenApi.ts', 'disableUserCommand.ts'] },
];

/** The layer index of a gateway file (by its first path part under src/), or -1 when it is in none. */
function layerOf(file: string): number {
  const part = relative(join(root, GATEWAY), file).split('/')[0] ?? '';
  return LAYERS.findIndex((layer) => layer.parts.includes(part));
}

describe('the gateway in layers: nothing imports from a layer above its own', () => {
  const graph = importGraph([GATEWAY]);
  const files = [...graph.keys()];
  const name = (file: string): string => relative(join(root, GATEWAY), file);

  test('every product file of the gateway is in a layer (a new folder is given its place here)', () => {
    expect(files.length).toBeGreaterThan(60);
    expect(files.filter((file) => layerOf(file) === -1).map(name)).toEqual([]);
  });

  test('the rule is read from the imports: the handlers reach authentication, the REST adapter the handlers, the MCP tools the handlers', () => {
    const reaches = (from: string, to: string): boolean => (graph.get(join(root, GATEWAY, from)) ?? []).includes(join(root, GATEWAY, to));
    expect(reaches('handlers/rateLimits.ts', 'auth/authenticateToken.ts')).toBe(true);
    expect(reaches('http/publicRoutes.ts', 'handlers/routeHandler.ts')).toBe(true);
    expect(reaches('mcp/toolCalls.ts', 'handlers/routeHandler.ts')).toBe(true);
  });

  test('no import runs back up: each goes to its own layer or one below', () => {
    const upward = files.flatMap((file) =>
      (graph.get(file) ?? [])
        .filter((target) => target.startsWith(join(root, GATEWAY)) && layerOf(target) > layerOf(file))
        .map((target) => `${name(file)} (${LAYERS[layerOf(file)]?.name}) imports ${name(target)} (${LAYERS[layerOf(target)]?.name})`),
    );
    expect(upward).toEqual([]);
  });
});
