// No circle of imports among the product files of services/ and shared/: a module in a circle may be
// read before it is evaluated, and a circle is a layer running back up. What is followed: every
// import and export that reaches run time (type-only ones are erased), relative ones and those of
// another workspace package (to the source file its exports map names). Tests and testing/ are
// left out: they sit above the product and may import any of it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(new URL('../..', import.meta.url).pathname);
const PRODUCT_ROOTS = ['services', 'shared'];

function isProductFile(path: string): boolean {
  return path.endsWith('.ts') && !path.endsWith('.test.ts') && !path.endsWith('.d.ts') && !/\/testing(\/|\.ts$)/.test(path);
}

function productFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (['node_modules', 'dist', 'bench', 'test'].includes(entry.name) || entry.name.startsWith('.')) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return productFiles(path);
    return isProductFile(path) ? [path] : [];
  });
}

/** Each workspace package's entry points (`@ars/bus`, `@ars/gateway/client`, …) → their source file. */
function packageEntries(): Map<string, string> {
  const entries = new Map<string, string>();
  for (const top of PRODUCT_ROOTS) {
    for (const dir of readdirSync(join(root, top), { withFileTypes: true })) {
      const manifestPath = join(root, top, dir.name, 'package.json');
      if (!dir.isDirectory() || !existsSync(manifestPath)) continue;
      const { name, exports } = JSON.parse(readFileSync(manifestPath, 'utf8')) as { name: string; exports?: Record<string, unknown> };
      for (const [subpath, target] of Object.entries(exports ?? { '.': { types: './src/index.ts' } })) {
        const conditions = typeof target === 'object' && target !== null ? (target as Record<string, unknown>) : {};
        const source = conditions.source ?? conditions.types;
        if (typeof source !== 'string') continue;
        const specifier = subpath === '.' ? name : `${name}/${subpath.replace(/^\.\//, '')}`;
        entries.set(specifier, join(root, top, dir.name, source));
      }
    }
  }
  return entries;
}

/** The specifiers a file imports or re-exports at run time. */
function runtimeImports(path: string): string[] {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, false);
  const specifiers: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : undefined;
      const typeOnly = clause?.isTypeOnly || (clause && !clause.name && named !== undefined && named.length > 0 && named.every((e) => e.isTypeOnly));
      if (!typeOnly && ts.isStringLiteral(statement.moduleSpecifier)) specifiers.push(statement.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)) {
      const named = statement.exportClause && ts.isNamedExports(statement.exportClause) ? statement.exportClause.elements : undefined;
      const typeOnly = statement.isTypeOnly || (named !== undefined && named.length > 0 && named.every((e) => e.isTypeOnly));
      if (!typeOnly) specifiers.push(statement.moduleSpecifier.text);
    }
  }
  return specifiers;
}

function resolveImport(from: string, specifier: string, entries: Map<string, string>): string | undefined {
  if (specifier.startsWith('.')) {
    const base = resolve(dirname(from), specifier).replace(/\.js$/, '');
    return [`${base}.ts`, join(base, 'index.ts')].find((candidate) => existsSync(candidate));
  }
  return entries.get(specifier);
}

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
  const entries = packageEntries();
  const files = PRODUCT_ROOTS.flatMap((top) => productFiles(join(root, top)));
  const graph = new Map(
    files.map((file) => [
      file,
      runtimeImports(file)
        .map((specifier) => resolveImport(file, specifier, entries))
        .filter((target): target is string => target !== undefined && isProductFile(target)),
    ]),
  );

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
