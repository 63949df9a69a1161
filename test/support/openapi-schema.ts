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
}

/** docs/api/openapi.json, to hold the answers to what it documents. */
export const openapi = JSON.parse(
  readFileSync(path.resolve(import.meta.dirname, '../../docs/api/openapi.json'), 'utf8'),
) as {
  components: { schemas: Record<string, Schema> };
  paths: Record<
    string,
    Record<
      string,
      {
        operationId: string;
        responses: Record<string, { content: { 'application/json': { schema: Schema } } }>;
      }
    >
  >;
};
const resolve = (schema: Schema): Schema => {
  if (schema.$ref) {
    const found = openapi.components.schemas[schema.$ref.replace('#/components/schemas/', '')];
    if (!found) throw new Error(`no schema ${schema.$ref}`);
    return resolve(found);
  }
  if (schema.allOf) {
    const merged: Schema = { properties: {}, required: [] };
    for (const part of schema.allOf.map(resolve)) {
      Object.assign(merged.properties as Record<string, Schema>, part.properties);
      merged.required?.push(...(part.required ?? []));
    }
    return merged;
  }
  return schema;
};
/**
 * The differences between a value and a documented schema: fields not documented, required fields
 * missing, values outside an enum or of another type (an empty list when it matches).
 */
export const undocumented = (value: unknown, schema: Schema, at = '$'): string[] => {
  const s = resolve(schema);
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
        : (openapi.paths[schema.path]?.[schema.method]?.responses[String(schema.status)]?.content[
            'application/json'
          ].schema ?? { type: 'undefined' }),
    ),
  ).toEqual([]);
