/**
 * An example value of a JSON Schema, for the reference page's request and answer of every
 * operation that has no hand-written example: the schema's own `example`/`examples`/`default`/
 * `const`, its first enum value, or a plausible value of its type and format.
 */
import type { JsonSchema } from './types.ts';

const SAMPLE_STRING: Record<string, string> = {
  'date-time': '2026-03-01T12:00:00.000Z',
  date: '2026-03-01',
  uri: 'https://console.example.com/',
  email: 'admin@example.com',
};

/**
 * A value for each pattern a string field of ours has (an id's or a name's shape): a pattern
 * without one here and without an example of its own stops `npm run openapi`, so every example
 * matches its schema (Redocly's no-invalid-media-type-examples).
 */
const SAMPLE_BY_PATTERN: Record<string, string> = {
  '^[A-Za-z0-9-]{1,39}\\/[A-Za-z0-9._-]{1,100}$': 'acme/web-app',
  '^[A-Za-z0-9_.-]+\\/[A-Za-z0-9_.-]+$': 'acme/web-app',
  '^[A-Za-z0-9_-]{1,64}$': 'deploy_key',
  '^[\\w.-]{1,32}$': 'v1.2.3',
  '^[\\x21-\\x7E]{1,255}$': 'deploy-key-1',
  '^[a-z0-9][a-z0-9-]{0,62}$': 'acme',
  '^exp_[a-z0-9]{21}$': 'exp_0k3m9q2w7x5v1b8n4c6z0',
  '^pc_[a-z0-9]{1,40}$': 'pc_0k3m9q2w7x5v1b8n4c6z',
};

/** Schemas met deeper than this (a schema that holds itself) get no example. */
const MAX_DEPTH = 24;

export const exampleOf = (schema: JsonSchema, components: Record<string, JsonSchema>, depth = 0): unknown => {
  if (depth > MAX_DEPTH) return undefined;
  if (schema.$ref) {
    const name = String(schema.$ref).replace('#/components/schemas/', '');
    const target = components[name];
    return target ? exampleOf(target, components, depth + 1) : undefined;
  }
  if (schema.example !== undefined) return schema.example;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum.find((value: unknown) => value !== null) ?? null;
  if (Array.isArray(schema.allOf))
    return Object.assign(
      {},
      ...schema.allOf.map((part: JsonSchema) => exampleOf(part, components, depth + 1)),
    );
  for (const key of ['oneOf', 'anyOf'])
    if (Array.isArray(schema[key])) {
      const first = schema[key].find((part: JsonSchema) => part.type !== 'null') ?? schema[key][0];
      return exampleOf(first, components, depth + 1);
    }
  const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const type = types.find((t) => t !== 'null') ?? (schema.properties ? 'object' : types[0]);
  switch (type) {
    case 'object':
      return Object.fromEntries(
        Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>).map(([key, value]) => [
          key,
          exampleOf(value, components, depth + 1),
        ]),
      );
    case 'array':
      return schema.items ? [exampleOf(schema.items, components, depth + 1)] : [];
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? Math.max(schema.minimum, 1) : 1;
    case 'boolean':
      return true;
    case 'string': {
      if (typeof schema.pattern === 'string') {
        const sample = SAMPLE_BY_PATTERN[schema.pattern];
        if (sample === undefined || !new RegExp(schema.pattern, 'u').test(sample))
          throw new Error(`lib/openapi/examples.ts has no sample for the pattern ${schema.pattern}: add one`);
        return sample;
      }
      const sample = SAMPLE_STRING[schema.format] ?? 'string';
      const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
      return sample.length >= min ? sample : sample.padEnd(min, 'x');
    }
    case 'null':
      return null;
    default:
      return undefined;
  }
};
