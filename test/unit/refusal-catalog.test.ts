import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REFUSAL_AREAS, REFUSALS } from '#core/refusals/index.ts';
import { REFUSAL_KINDS } from '#core/refusals/kinds.ts';
import { STATUS_OF_KIND } from '#http/refusal-status.ts';
import { REPO_ROOT } from '../../lib/constants.ts';

/**
 * One refusal vocabulary (issue 38, item 1): every code in exactly one area's catalog, raised by
 * code (`refuse`), its status chosen at the HTTP edge from its kind.
 */

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });

describe('the refusal catalog', () => {
  it('holds each code in exactly one area', () => {
    const areasOf = new Map<string, string[]>();
    for (const [area, entries] of Object.entries(REFUSAL_AREAS))
      for (const code of Object.keys(entries)) areasOf.set(code, [...(areasOf.get(code) ?? []), area]);
    expect([...areasOf].filter(([, areas]) => areas.length > 1)).toEqual([]);
    expect(Object.keys(REFUSALS).length).toBe(areasOf.size);
  });

  it('gives every kind a status at the edge, and every code a kind', () => {
    for (const kind of REFUSAL_KINDS) expect(STATUS_OF_KIND[kind], kind).toBeGreaterThanOrEqual(400);
    for (const [code, entry] of Object.entries(REFUSALS)) expect(REFUSAL_KINDS, code).toContain(entry.kind);
  });

  it('is the only place a refusal is built: no `new Refusal(` in functions/ or lib/ outside it', () => {
    const builders = [...sources(path.join(REPO_ROOT, 'functions')), ...sources(path.join(REPO_ROOT, 'lib'))]
      .filter((file) => !file.includes(`${path.sep}lib${path.sep}client${path.sep}`))
      .filter((file) => !file.endsWith(path.join('core', 'refusals', 'catalog.ts')))
      .filter((file) => /new Refusal\(/.test(readFileSync(file, 'utf8')))
      .map((file) => path.relative(REPO_ROOT, file));
    expect(builders).toEqual([]);
  });
});
