/**
 * The boundary between the offline queue and payments (docs/offline.md, "Offline and
 * payments"): offline keeps its own tables and speaks to payments through verbs. Two
 * readings of the source check it:
 * - SQL in src/offline never names a journal table (a query, a join, a probe of its
 *   columns, a foreign key);
 * - nothing src/offline imports from src/payments carries a better-sqlite3 `Database`,
 *   in its members, parameters or results, however deep.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

function listTs(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...listTs(full));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(full);
  }
  return out.sort();
}

const rel = (root: string, file: string): string => relative(root, file).split(sep).join('/');

/** The tables the journal's own code creates (src/payments/): `CREATE TABLE [IF NOT EXISTS] name`. */
export function journalTables(paymentsDir: string): string[] {
  const names = new Set<string>();
  for (const file of listTs(paymentsDir)) {
    for (const m of readFileSync(file, 'utf8').matchAll(/CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)/gi))
      names.add((m[1] as string).toLowerCase());
  }
  return [...names].sort();
}

/** The text of every string and template literal of a file (a template's holes read as `?`), with its line. */
function literals(file: string, text: string): Array<{ text: string; line: number }> {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const out: Array<{ text: string; line: number }> = [];
  const visit = (node: ts.Node): void => {
    let value: string | undefined;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) value = node.text;
    else if (ts.isTemplateExpression(node))
      value = [node.head.text, ...node.templateSpans.map((s) => `?${s.literal.text}`)].join('');
    if (value !== undefined) {
      out.push({ text: value, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/**
 * One line per SQL text in `offlineDir` that names one of `tables`: after FROM, JOIN, INTO,
 * UPDATE, TABLE, ON or REFERENCES, or as the argument of a `pragma_table_info`.
 */
export function journalSqlInOffline(offlineDir: string, tables: readonly string[]): string[] {
  const root = resolve(offlineDir, '..');
  const names = tables.map((t) => t.replace(/\W/g, '')).join('|');
  const sql = new RegExp(
    `\\b(?:from|join|into|update|table|on|references)\\s+(?:main\\.|temp\\.)?["'\`]?(${names})\\b|pragma_table_info\\s*\\(\\s*'(${names})'`,
    'gi',
  );
  const out: string[] = [];
  for (const file of listTs(resolve(offlineDir))) {
    for (const lit of literals(file, readFileSync(file, 'utf8'))) {
      for (const m of lit.text.matchAll(sql)) {
        out.push(`${rel(root, file)}:${lit.line} names the journal table ${m[1] ?? m[2]}: "${m[0]}"`);
      }
    }
  }
  return out;
}

function isDatabase(type: ts.Type): boolean {
  const symbol = type.aliasSymbol ?? type.getSymbol();
  if (symbol === undefined || symbol.getName() !== 'Database') return false;
  return (symbol.getDeclarations() ?? []).some((d) => d.getSourceFile().fileName.includes('better-sqlite3'));
}

/**
 * Where a better-sqlite3 `Database` is reachable from `type`: its properties, the parameters
 * and results of its call and construct signatures, union and intersection members and type
 * arguments, `depth` levels down. Answers the path to the first one, or undefined.
 */
function databaseIn(
  checker: ts.TypeChecker,
  type: ts.Type,
  path: string,
  depth: number,
  seen: Set<ts.Type>,
): string | undefined {
  if (isDatabase(type)) return path;
  if (depth === 0 || seen.has(type)) return undefined;
  seen.add(type);
  const inner: Array<[ts.Type, string]> = [];
  if (type.isUnionOrIntersection()) for (const t of type.types) inner.push([t, path]);
  if ((type.flags & ts.TypeFlags.Object) !== 0) {
    for (const arg of checker.getTypeArguments(type as ts.TypeReference) ?? []) inner.push([arg, `${path}<>`]);
    for (const p of checker.getPropertiesOfType(type)) {
      const decl = p.valueDeclaration ?? p.getDeclarations()?.[0];
      // Members of the language's own types (Array, Map, Promise, ...) lead nowhere new.
      if (decl === undefined || decl.getSourceFile().hasNoDefaultLib) continue;
      inner.push([checker.getTypeOfSymbolAtLocation(p, decl), `${path}.${p.getName()}`]);
    }
    for (const sig of [...type.getCallSignatures(), ...type.getConstructSignatures()]) {
      for (const param of sig.getParameters()) {
        const decl = param.valueDeclaration ?? param.getDeclarations()?.[0];
        if (decl !== undefined)
          inner.push([checker.getTypeOfSymbolAtLocation(param, decl), `${path}(${param.getName()})`]);
      }
      inner.push([sig.getReturnType(), `${path}()`]);
    }
  }
  for (const [t, p] of inner) {
    const found = databaseIn(checker, t, p, depth - 1, seen);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * One line per name a file of `offlineDir` imports from `paymentsDir` through which a
 * better-sqlite3 `Database` is reachable, with the path to it.
 */
export function databaseAcrossBoundary(offlineDir: string, paymentsDir: string, depth = 6): string[] {
  const files = listTs(resolve(offlineDir));
  const root = resolve(offlineDir, '..');
  const payments = resolve(paymentsDir);
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    skipLibCheck: true,
    types: ['node'],
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const out: string[] = [];
  for (const file of files) {
    const source = program.getSourceFile(file);
    if (source === undefined) continue;
    for (const stmt of source.statements) {
      if (!ts.isImportDeclaration(stmt) && !ts.isExportDeclaration(stmt)) continue;
      const spec = stmt.moduleSpecifier;
      if (spec === undefined || !ts.isStringLiteral(spec)) continue;
      const target = resolve(file, '..', spec.text);
      if (!target.startsWith(payments + sep)) continue;
      const named: ts.Identifier[] = [];
      if (ts.isImportDeclaration(stmt)) {
        const bindings = stmt.importClause?.namedBindings;
        if (bindings !== undefined && ts.isNamedImports(bindings))
          for (const e of bindings.elements) named.push(e.name);
        if (stmt.importClause?.name !== undefined) named.push(stmt.importClause.name);
      } else if (stmt.exportClause !== undefined && ts.isNamedExports(stmt.exportClause)) {
        for (const e of stmt.exportClause.elements) {
          const name = e.propertyName ?? e.name;
          if (ts.isIdentifier(name)) named.push(name);
        }
      }
      for (const id of named) {
        let symbol = checker.getSymbolAtLocation(id);
        if (symbol === undefined) continue;
        if ((symbol.flags & ts.SymbolFlags.Alias) !== 0) symbol = checker.getAliasedSymbol(symbol);
        const types: ts.Type[] = [];
        if ((symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Class)) !== 0)
          types.push(checker.getDeclaredTypeOfSymbol(symbol));
        if ((symbol.flags & ts.SymbolFlags.Value) !== 0) types.push(checker.getTypeOfSymbolAtLocation(symbol, id));
        for (const t of types) {
          const found = databaseIn(checker, t, id.text, depth, new Set());
          if (found !== undefined) {
            const line = source.getLineAndCharacterOfPosition(stmt.getStart()).line + 1;
            out.push(
              `${rel(root, file)}:${line} imports ${id.text} from payments, which carries a Database at ${found}`,
            );
            break;
          }
        }
      }
    }
  }
  return out;
}
