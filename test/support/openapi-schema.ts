import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';

/** A schema of docs/api/openapi.json, as far as the tests read it. */
export interface Schema {
  $ref?: string;
  allOf?: Schema[];
  type?: string | string[];
  enum?: unknown[];
  required?: string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  const?: unknown;
}

/** An answer of docs/api/openapi.json, or a reference to one of its `components.responses`. */
interface DocumentedAnswer {
  $ref?: string;
  content?: Record<string, { schema?: Schema }>;
}

/** docs/api/openapi.json, to hold the answers to what it documents. */
export const openapi = JSON.parse(
  readFileSync(path.resolve(import.meta.dirname, '../../docs/api/openapi.json'), 'utf8'),
) as {
  components: { schemas: Record<string, Schema>; responses: Record<string, DocumentedAnswer> };
  paths: Record<
    string,
    Record<
      string,
      {
        operationId: string;
        responses: Record<string, DocumentedAnswer>;
      }
    >
  >;
};

/** An answer as documented: the shared one of `components.responses` it refers to, or itself. */
export const answerOf = (answer: DocumentedAnswer | undefined): DocumentedAnswer | undefined => {
  if (!answer?.$ref) return answer;
  const shared = openapi.components.responses[answer.$ref.replace('#/components/responses/', '')];
  if (!shared) throw new Error(`no answer ${answer.$ref}`);
  return shared;
};
/** Two schemas that must both hold, as one: properties merged (a field in both must meet both). */
const merge = (a: Schema, b: Schema): Schema => {
  const properties: Record<string, Schema> = { ...a.properties };
  for (const [key, value] of Object.entries(b.properties ?? {}))
    properties[key] = properties[key] ? { allOf: [properties[key] as Schema, value] } : value;
  return {
    ...a,
    ...b,
    type: a.type ?? b.type,
    enum: b.enum ?? a.enum,
    ...(a.properties || b.properties ? { properties } : {}),
    required: [...new Set([...(a.required ?? []), ...(b.required ?? [])])],
  };
};
const resolve = (schema: Schema): Schema => {
  if (schema.$ref) {
    const found = openapi.components.schemas[schema.$ref.replace('#/components/schemas/', '')];
    if (!found) throw new Error(`no schema ${schema.$ref}`);
    return resolve(found);
  }
  if (schema.allOf) return schema.allOf.map(resolve).reduce(merge, {});
  return schema;
};
/**
 * The differences between a value and a documented schema: fields not documented, required fields
 * missing, values outside an enum or of another type (an empty list when it matches).
 */
export const undocumented = (value: unknown, schema: Schema, at = '$'): string[] => {
  const s = resolve(schema);
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives) {
    const each = alternatives.map((alternative) => undocumented(value, alternative, at));
    return each.some((found) => found.length === 0) ? [] : (each[0] ?? []);
  }
  if (s.const !== undefined && s.const !== value)
    return [`${at}: ${JSON.stringify(value)} is not ${JSON.stringify(s.const)}`];
  const types = s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type];
  if (value === null) return types.length === 0 || types.includes('null') ? [] : [`${at}: null`];
  if (s.enum && !s.enum.includes(value)) return [`${at}: ${JSON.stringify(value)} not in the enum`];
  const actual = Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;
  if (types.length > 0 && !types.includes(actual) && !(actual === 'integer' && types.includes('number')))
    return [`${at}: ${actual}, documented ${types.join('|')}`];
  if (Array.isArray(value))
    return s.items
      ? value.flatMap((item, index) => undocumented(item, s.items as Schema, `${at}[${index}]`))
      : [];
  if (typeof value !== 'object' || !s.properties) return [];
  const record = value as Record<string, unknown>;
  const props = s.properties;
  return [
    ...Object.keys(record)
      .filter((key) => !(key in props))
      .map((key) => `${at}.${key}: not documented`),
    ...(s.required ?? []).filter((key) => !(key in record)).map((key) => `${at}.${key}: missing`),
    ...Object.entries(record).flatMap(([key, field]) =>
      props[key] ? undocumented(field, props[key] as Schema, `${at}.${key}`) : [],
    ),
  ];
};
/** Holds `value` to a component schema (by name) or to the answer documented for a route and status. */
export const documented = (
  value: unknown,
  schema: string | { path: string; method: string; status: number },
) =>
  expect(
    undocumented(
      value,
      typeof schema === 'string'
        ? { $ref: `#/components/schemas/${schema}` }
        : (answerOf(openapi.paths[schema.path]?.[schema.method]?.responses[String(schema.status)])?.content?.[
            'application/json'
          ]?.schema ?? { type: 'undefined' }),
    ),
  ).toEqual([]);

/** A documented path as a pattern: `{name}` matches one segment. */
const patterns = Object.keys(openapi.paths).map((documentedPath) => ({
  documentedPath,
  pattern: new RegExp(`^${documentedPath.replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));
/** The documented path a request's URL answers at: a literal path before one with parameters. */
const documentedPathOf = (method: string, url: string): string | undefined => {
  const pathname = url.split('?')[0] ?? '';
  const matches = patterns.filter(
    ({ documentedPath, pattern }) =>
      pattern.test(pathname) && openapi.paths[documentedPath]?.[method.toLowerCase()],
  );
  return matches.sort((a, b) => a.documentedPath.split('{').length - b.documentedPath.split('{').length)[0]
    ?.documentedPath;
};

/**
 * How an answer the API gave disagrees with docs/api/openapi.json (an empty list when it
 * agrees): its status is not documented for the route, or its JSON body does not meet the
 * schema documented for that status. Paths the document does not name (`/_local/`) are not held.
 */
export const answerDisagreements = (
  method: string,
  url: string,
  answer: { status: number; json: unknown },
): string[] => {
  const documentedPath = documentedPathOf(method, url);
  if (!documentedPath) return [];
  const operation = openapi.paths[documentedPath]?.[method.toLowerCase()];
  const documentedAnswer = answerOf(operation?.responses[String(answer.status)]);
  const where = `${method} ${documentedPath} ${answer.status}`;
  if (!documentedAnswer) return [`${where}: the status is not documented`];
  const schema = documentedAnswer.content?.['application/json']?.schema;
  if (!schema || answer.json === undefined) return [];
  return undocumented(answer.json, schema).map((found) => `${where}: ${found}`);
};
