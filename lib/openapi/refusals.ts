/**
 * The refusals the code can answer, with their status and words: the adapter the OpenAPI
 * generator (lib/openapi/generate.ts) reads them through. Until the code has one refusal catalog,
 * it reads them from the code itself: every `new Refusal(status, 'code', words)` (or `Refusal`)
 * under functions/, the tables such a call reads its words from (`TABLE[code]`), the
 * `{ code: [status, words] }` tables, and `{ code, message }` results that a refusal is built
 * from. When the catalog lands, this module returns the catalog's entries instead; nothing else
 * changes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import type { RefusalEntry as CatalogEntry } from '#core/refusals/catalog.ts';
import { REFUSALS } from '#core/refusals/index.ts';
import { STATUS_OF_KIND } from '#http/refusal-status.ts';
import { REPO_ROOT } from '../constants.ts';

export interface RefusalEntry {
  code: string;
  /** The HTTP statuses it is answered with (most codes have one). */
  statuses: number[];
  /** Its words: each distinct message, `…` where the message names a value of the request. */
  words: string[];
}

const CODE = /^[a-z][a-z0-9]*(_[a-z0-9]+)+$|^[a-z]+$/;

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });

/** The words of an expression: a string, or a template with `…` for what it interpolates. */
const wordsOf = (node: ts.Expression | undefined): string | undefined => {
  if (!node) return undefined;
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node))
    return node.head.text + node.templateSpans.map((span) => `…${span.literal.text}`).join('');
  if (ts.isParenthesizedExpression(node)) return wordsOf(node.expression);
  if (ts.isConditionalExpression(node)) return wordsOf(node.whenTrue);
  return undefined;
};

const propertyName = (name: ts.PropertyName): string | undefined =>
  ts.isIdentifier(name) || ts.isStringLiteral(name) ? name.text : undefined;

/** The status a refusal's kind (a string literal naming one) is answered with. */
const statusFrom = (node: ts.Expression | undefined): number | undefined =>
  node && ts.isStringLiteral(node) && node.text in STATUS_OF_KIND
    ? STATUS_OF_KIND[node.text as keyof typeof STATUS_OF_KIND]
    : undefined;

let cached: Map<string, RefusalEntry> | undefined;

/** Every refusal code the code answers, by code. */
export const refusalCatalog = (): Map<string, RefusalEntry> => {
  if (cached) return cached;
  const found = new Map<string, RefusalEntry>();
  const add = (code: string, status: number | undefined, words: string | undefined) => {
    if (!CODE.test(code)) return;
    const entry = found.get(code) ?? { code, statuses: [], words: [] };
    if (status !== undefined && !entry.statuses.includes(status)) entry.statuses.push(status);
    if (words !== undefined && !entry.words.includes(words)) entry.words.push(words);
    found.set(code, entry);
  };
  // Object literal tables by name, for `new Refusal(kind, code, TABLE[code])`.
  const tables = new Map<string, ts.ObjectLiteralExpression>();
  const tableReads: { table: string; status: number }[] = [];
  for (const file of sourceFiles(path.join(REPO_ROOT, 'functions'))) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (
        ts.isVariableDeclaration(node) &&
        ts.isIdentifier(node.name) &&
        node.initializer &&
        ts.isObjectLiteralExpression(
          ts.isAsExpression(node.initializer) ? node.initializer.expression : node.initializer,
        )
      ) {
        const literal = (
          ts.isAsExpression(node.initializer) ? node.initializer.expression : node.initializer
        ) as ts.ObjectLiteralExpression;
        tables.set(node.name.text, literal);
        // `{ code: [kind, words] }`
        for (const property of literal.properties) {
          if (!ts.isPropertyAssignment(property)) continue;
          const name = propertyName(property.name);
          const value = property.initializer;
          if (
            name &&
            ts.isArrayLiteralExpression(value) &&
            value.elements.length === 2 &&
            statusFrom(value.elements[0]) !== undefined
          )
            add(name, statusFrom(value.elements[0]), wordsOf(value.elements[1]));
        }
      }
      // `{ code: 'x', message: '…' }`: a refusal's parts handed to one that builds it.
      if (ts.isObjectLiteralExpression(node)) {
        const props = new Map(
          node.properties
            .filter(ts.isPropertyAssignment)
            .map((property) => [propertyName(property.name), property.initializer] as const),
        );
        const code = props.get('code');
        const message = props.get('message');
        if (code && message && ts.isStringLiteral(code)) {
          const words = wordsOf(message);
          if (words !== undefined) add(code.text, undefined, words);
        }
      }
      if (
        ts.isNewExpression(node) &&
        ts.isIdentifier(node.expression) &&
        node.expression.text === 'Refusal'
      ) {
        const [kind, code, text] = node.arguments ?? [];
        const statusValue = statusFrom(kind);
        if (code && ts.isStringLiteral(code)) add(code.text, statusValue, wordsOf(text));
        else if (
          code &&
          ts.isConditionalExpression(code) &&
          ts.isStringLiteral(code.whenTrue) &&
          ts.isStringLiteral(code.whenFalse) &&
          text &&
          ts.isConditionalExpression(text)
        ) {
          add(code.whenTrue.text, statusValue, wordsOf(text.whenTrue));
          add(code.whenFalse.text, statusValue, wordsOf(text.whenFalse));
        } else if (
          statusValue !== undefined &&
          text &&
          ts.isElementAccessExpression(text) &&
          ts.isIdentifier(text.expression)
        )
          tableReads.push({ table: text.expression.text, status: statusValue });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  for (const { table, status } of tableReads) {
    const literal = tables.get(table);
    if (!literal) continue;
    for (const property of literal.properties) {
      if (!ts.isPropertyAssignment(property)) continue;
      const name = propertyName(property.name);
      if (name) add(name, status, wordsOf(property.initializer));
    }
  }
  // The catalogs (functions/core/refusals/): each code's kind and words, a fact shown as `…`.
  for (const [code, entry] of Object.entries(REFUSALS) as [string, CatalogEntry<unknown>][])
    add(code, STATUS_OF_KIND[entry.kind], catalogWords(entry));
  cached = found;
  return found;
};

/** Any fact a catalog's words name, as the document shows it: `…`. */
const ANY_FACTS = new Proxy({}, { get: () => '…' });

/** A catalog entry's words, with `…` for each fact they name. */
export const catalogWords = (entry: CatalogEntry<unknown>): string =>
  typeof entry.words === 'string' ? entry.words : entry.words(ANY_FACTS);
