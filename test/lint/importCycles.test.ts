// No circle of imports among the product files of services/ and shared/: a module in a circle may be
// read before it is evaluated, and a circle is a layer running back up. What is followed: every
// import and export that reaches run time (type-only ones are erased), relative ones and those of
// another workspace package (to the source file its exports map names). Tests and testing/ are
// left out: they sit above the product and may import any of it.
import { join, relative } from 'node:path';
import { importGraph, PRODUCT_ROOTS, root } from './importGraph.js';

/** Strongly connected components of more than one file (Tarjan), each as paths from the root. */
function circles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, counter);
    low.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file) ?? 0, index.get(next) ?? 0));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(relative(root, member));
    } while (member !== file);
    if (component.length > 1) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

describe('no circle of imports among the product files of services/ and shared/', () => {
  const graph = importGraph(PRODUCT_ROOTS);
  const files = [...graph.keys()];

  test('the import graph is read: every product file, and the relative and package imports between them', () => {
    expect(files.length).toBeGreaterThan(300);
    const edges = [...graph.values()].reduce((sum, targets) => sum + targets.length, 0);
    expect(edges).toBeGreaterThan(files.length);
    // A package import is followed to its source: the gateway's composition reaches @ars/bus.
    expect(graph.get(join(root, 'services/gateway/src/gateway.ts'))?.some((target) => target.startsWith(join(root, 'shared/')))).toBe(true);
  });

  test('no file reaches itself through its imports', () => {
    expect(circles(graph)).toEqual([]);
  });
});
