/**
 * The answers' JSON Schemas, converted from their valibot schemas (functions/http/answers/):
 * the named ones become the document's components.schemas (each reference to one is a `$ref`),
 * and each operation's own answers and refusal bodies are converted where the generator
 * (lib/openapi/generate.ts) writes them.
 */
import { type ConversionConfig, toJsonSchema, toJsonSchemaDefs } from '@valibot/to-json-schema';
import type { GenericSchema } from 'valibot';
import { OPERATION_ANSWERS } from '#http/answers/operations.ts';
import { ANSWER_DEFINITIONS } from '#http/answers/schemas.ts';
import { ErrorBodySchema } from '#http/errors.ts';
import type { JsonSchema } from './types.ts';

const DEFINITIONS: Record<string, GenericSchema> = { Error: ErrorBodySchema, ...ANSWER_DEFINITIONS };
const refTo = (name: string): string => `#/components/schemas/${name}`;

const CONFIG: ConversionConfig = {
  target: 'draft-2020-12',
  overrideRef: ({ referenceId }) => refTo(referenceId),
};

/** A schema's shape without its words, keys in order: to find a named schema copied inline. */
const shapeOf = (schema: unknown): string =>
  JSON.stringify(schema, (_key, value) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(
          Object.entries(value)
            .filter(([key]) => key !== 'description' && key !== 'examples')
            .sort(([a], [b]) => a.localeCompare(b)),
        )
      : value,
  );

/**
 * A named schema given words of its own (`v.pipe(MoneyAnswer, v.description(...))`) is written
 * out by the converter as a copy of the named schema with those words: this puts the reference
 * back, with the words beside it.
 */
const withRefs = (schema: JsonSchema, named: Map<string, string>, self?: string): JsonSchema => {
  const walk = (node: unknown, top: boolean): unknown => {
    if (Array.isArray(node)) return node.map((item) => walk(item, false));
    if (!node || typeof node !== 'object') return node;
    const name = named.get(shapeOf(node));
    if (name && !(top && name === self)) {
      const { description, examples } = node as JsonSchema;
      return {
        $ref: refTo(name),
        ...(description ? { description } : {}),
        ...(examples ? { examples } : {}),
      };
    }
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, walk(value, false)]));
  };
  return walk(schema, true) as JsonSchema;
};

const withoutDraft = ({ $schema: _draft, $defs: _defs, ...schema }: JsonSchema): JsonSchema => schema;

const CONVERTED = Object.entries(toJsonSchemaDefs(DEFINITIONS, CONFIG)).map(
  ([name, schema]) => [name, withoutDraft(schema)] as const,
);
const NAMED_SHAPES = new Map(CONVERTED.map(([name, schema]) => [shapeOf(schema), name]));

/** The document's components.schemas: the error's and every named answer's. */
export const COMPONENT_SCHEMAS: Record<string, JsonSchema> = Object.fromEntries(
  CONVERTED.map(([name, schema]) => [name, withRefs(schema, NAMED_SHAPES, name)]),
);

/** One valibot answer schema as JSON Schema, named schemas as `$ref`s. */
export const answerJsonSchema = (schema: GenericSchema): JsonSchema =>
  withRefs(
    withoutDraft(toJsonSchema(schema, { ...CONFIG, definitions: DEFINITIONS }) as JsonSchema),
    NAMED_SHAPES,
  );

/** An operation's own answer (status, media type), as JSON Schema. */
export const operationAnswer = (routeId: string, status: string, type: string): JsonSchema | undefined => {
  const schema = OPERATION_ANSWERS[routeId]?.answers?.[status]?.[type];
  return schema ? answerJsonSchema(schema) : undefined;
};

/** The body of an operation's refusal with fields beyond the error's, as JSON Schema. */
export const operationRefusal = (routeId: string, status: string): JsonSchema | undefined => {
  const schema = OPERATION_ANSWERS[routeId]?.refusals?.[status];
  return schema ? answerJsonSchema(schema) : undefined;
};
