/** The parts of an OpenAPI 3.1 document that lib/openapi writes. */

// biome-ignore lint/suspicious/noExplicitAny: JSON Schema is open-ended
export type JsonSchema = Record<string, any>;

export interface MediaType {
  schema?: JsonSchema;
  example?: unknown;
}

export interface Answer {
  description: string;
  headers?: Record<string, { description?: string; schema: JsonSchema }>;
  content?: Record<string, MediaType>;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  description?: string;
  schema: JsonSchema;
  example?: unknown;
}

/** What an operation says beyond its route and its handler's contract. */
export interface OperationDocs {
  description?: string;
  /** The descriptions of the route's `alsoAt` operations, by their ids. */
  aliasDescriptions?: Record<string, string>;
  parameters?: Parameter[];
  requestBody?: {
    description?: string;
    example?: unknown;
    /** Words for the body's fields, by dotted path (`[]` for an array's items). */
    fieldDescriptions?: Record<string, string>;
    /** Only for a body the handler reads raw (no valibot schema to convert). */
    schema?: JsonSchema;
  };
  /**
   * The answers that are not refusals, by status: their words and examples; their schemas are the
   * operation's valibot ones (functions/http/answers/operations.ts).
   */
  answers: Record<string, Omit<Answer, 'content'> & { content?: Record<string, { example?: unknown }> }>;
  /**
   * The refusals the operation answers beyond those its contract implies (authentication, role,
   * body), by status: the codes, the prose that says when, the extra fields' schema and headers.
   */
  refusals: Record<
    string,
    {
      description?: string;
      codes: string[];
      headers?: Answer['headers'];
    }
  >;
}
