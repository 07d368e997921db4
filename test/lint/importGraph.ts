// The product files of services/ and shared/ and the imports between them that reach run time,
// read with the TypeScript parser: what the import-circle and gateway-layer tests check.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';

export const root = resolve(new URL('../..', import.meta.url).pathname);
export const PRODUCT_ROOTS = ['services', 'shared'];

export function isProductFile(path: string): boolean {
  return path.endsWith('.ts') && !path.endsWith('.test.ts') && !path.endsWith('.d.ts') && !/\/testing(\/|\.ts$)/.test(path);
}

export function productFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (['node_modules', 'dist', 'bench', 'test'].includes(entry.name) || entry.name.startsWith('.')) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return productFiles(path);
    return isProductFile(path) ? [path] : [];
  });
}

/** Each workspace package's entry points (`@ars/bus`, `@ars/gateway/client`, …) → their source file. */
export function packageEntries(): Map<string, string> {
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
export function runtimeImports(path: string): string[] {
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

export function resolveImport(from: string, specifier: string, entries: Map<string, string>): string | undefined {
  if (specifier.startsWith('.')) {
    const base = resolve(dirname(from), specifier).replace(/\.js$/, '');
    return [`${base}.ts`, join(base, 'index.ts')].find((candidate) => existsSync(candidate));
  }
  return entries.get(specifier);
}

/** Each product file under `dirs` → the product files it imports at run time. */
export function importGraph(dirs: readonly string[]): Map<string, string[]> {
  const entries = packageEntries();
  const files = dirs.flatMap((dir) => productFiles(join(root, dir)));
  return new Map(
    files.map((file) => [
      file,
      runtimeImports(file)
        .map((specifier) => resolveImport(file, specifier, entries))
        .filter((target): target is string => target !== undefined && isProductFile(target)),
    ]),
  );
}
