import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * No import cycle under lib/local: the import graph of lib/local/**\/*.ts (relative specifiers of
 * `import ... from`, `import type ... from`, `export ... from` and bare `import '...'`) has no
 * cycle. Type-only imports count too: a cycle of types is still two modules that know each other.
 */
const root = fileURLToPath(new URL('../../lib/local/', import.meta.url));

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });

const SPECIFIER =
  /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]/g;

/** The relative imports of `source` (comments removed first), resolved against `file`. */
const importsOf = (file: string, source: string): string[] => {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  return [...code.matchAll(SPECIFIER)].map((match) => path.resolve(path.dirname(file), match[1] ?? ''));
};

/** Every cycle found by a depth-first walk, each as the files along it. */
const cyclesOf = (graph: Map<string, string[]>): string[][] => {
  const cycles: string[][] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'visiting');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'visiting') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return cycles;
};

describe('lib/local has no import cycle', () => {
  it('the import graph of lib/local/**/*.ts is acyclic', () => {
    const files = sourceFiles(root);
    const graph = new Map(files.map((file) => [file, importsOf(file, readFileSync(file, 'utf8'))]));
    expect(graph.size).toBeGreaterThan(10);
    const named = cyclesOf(graph).map((cycle) => cycle.map((file) => path.relative(root, file)).join(' -> '));
    expect(named).toEqual([]);
  });

  it('the checker finds a cycle when there is one (two modules importing each other)', () => {
    const a = path.join(root, 'a.ts');
    const b = path.join(root, 'b.ts');
    expect(importsOf(a, "import { x } from './b.ts';\nimport type { Y } from './b.ts';")).toEqual([b, b]);
    expect(importsOf(a, "// import { x } from './b.ts';\n/* import './b.ts' */")).toEqual([]);
    expect(importsOf(a, "export { x } from './b.ts';\nimport './b.ts';")).toEqual([b, b]);
    expect(
      importsOf(a, "import {\n  one,\n  type Two,\n} from './b.ts';\nimport { z } from 'node:fs';"),
    ).toEqual([b]);
    expect(
      cyclesOf(
        new Map([
          [a, [b]],
          [b, [a]],
        ]),
      ),
    ).toEqual([[a, b, a]]);
    expect(
      cyclesOf(
        new Map([
          [a, [b]],
          [b, []],
        ]),
      ),
    ).toEqual([]);
  });
});
