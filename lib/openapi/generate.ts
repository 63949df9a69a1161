/**
 * docs/api/openapi.json, made from the code: the route table (lib/routes.ts: ids, methods, paths,
 * summaries, authentication), each handler's contract (functions/http/handler.ts: its valibot body
 * schema, converted with @valibot/to-json-schema, its body limit, its role), the refusals each
 * operation can answer with their words (lib/openapi/refusals.ts), every answer's valibot schema
 * (functions/http/answers/, converted by lib/openapi/answers.ts) and the prose of
 * lib/openapi/operations.ts and lib/openapi/components.ts. `npm run openapi` writes it;
 * test/unit/openapi.test.ts fails when the committed file is not what this makes.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { toJsonSchema } from '@valibot/to-json-schema';
import type { OpenAPI3 } from 'openapi-typescript';
import type { GenericSchema } from 'valibot';
import { REPO_ROOT } from '../constants.ts';
import { type Route, routes, servedPaths } from '../routes.ts';
import { operationAnswer, operationRefusal } from './answers.ts';
import {
  ANSWER_SCHEMAS,
  ERROR_SCHEMA,
  INFO,
  SECURITY_SCHEMES,
  SERVERS,
  SHARED_REFUSAL_WORDS,
} from './components.ts';
import { exampleOf } from './examples.ts';
import { OPERATIONS } from './operations.ts';
import { refusalCatalog } from './refusals.ts';
import type { Answer, JsonSchema } from './types.ts';

/** What functions/http/handler.ts's `httpHandler` records of a route (its `contract`). */
interface Contract {
  auth: 'session' | 'dispatcher' | 'none';
  role?: string;
  body?: GenericSchema;
  rawBody?: { maxBytes: number };
  maxBodyBytes?: number;
}

export const DOCUMENT_PATH = path.join(REPO_ROOT, 'docs/api/openapi.json');

const contractOf = async (route: Route): Promise<Contract> => {
  const module = (await import(pathToFileURL(path.join(REPO_ROOT, route.handler)).href)) as {
    handler: { contract?: Contract };
  };
  if (!module.handler.contract) throw new Error(`${route.handler}: no httpHandler contract`);
  return module.handler.contract;
};

const SECURITY: Record<Route['auth'], Record<string, string[]>[]> = {
  session: [{ bearer: [] }, { sessionCookie: [] }],
  dispatcher: [{ dispatcherCredential: [] }],
  iam: [{ sigv4: [] }],
  none: [],
};

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * A refusal many operations answer alike: its codes and words, and the name it has in the
 * document's `components.responses` (an operation that adds no codes of its own refers to it).
 */
interface SharedRefusal {
  name: string;
  codes: string[];
  description: string;
}

/** The refusals a route's contract implies, by status, with the words of what they share. */
const impliedRefusals = (route: Route, contract: Contract): Record<string, SharedRefusal> => {
  const implied: Record<string, SharedRefusal> = {};
  if (route.auth === 'session')
    implied['401'] = {
      name: 'Unauthenticated',
      codes: ['missing_session', 'invalid_session', 'expired_session'],
      description: SHARED_REFUSAL_WORDS.Unauthenticated,
    };
  if (route.auth === 'dispatcher')
    implied['401'] = {
      name: 'DispatcherUnauthenticated',
      codes: ['dispatcher_credential_required', 'invalid_dispatcher_credential'],
      description:
        'No Dispatcher credential, or one that is not valid (unknown, or rotated out more than an hour ago).',
    };
  const admin = route.auth === 'session' && contract.role === 'administrator';
  const origin = route.auth === 'session' && UNSAFE.has(route.method);
  if (admin || origin)
    implied['403'] = {
      name: admin && origin ? 'Forbidden' : admin ? 'AdminRequired' : 'OriginMismatch',
      codes: [...(admin ? ['admin_required'] : []), ...(origin ? ['origin_mismatch'] : [])],
      description: SHARED_REFUSAL_WORDS.Forbidden,
    };
  if (UNSAFE.has(route.method)) {
    implied['400'] = contract.rawBody
      ? { name: 'RawBodyTooLarge', codes: ['body_too_large'], description: SHARED_REFUSAL_WORDS.BadRequest }
      : {
          name: 'BadRequest',
          codes: ['invalid_json', 'body_too_large', 'unknown_field', 'invalid_field', 'invalid_body'],
          description: SHARED_REFUSAL_WORDS.BadRequest,
        };
    if (!contract.rawBody)
      implied['415'] = {
        name: 'UnsupportedMediaType',
        codes: ['unsupported_media_type'],
        description: SHARED_REFUSAL_WORDS.UnsupportedMediaType,
      };
  }
  implied['500'] = {
    name: 'InternalError',
    codes: ['internal_error'],
    description: SHARED_REFUSAL_WORDS.InternalError,
  };
  implied['503'] = {
    name: 'TemporarilyBusy',
    codes: ['temporarily_busy'],
    description: SHARED_REFUSAL_WORDS.TemporarilyBusy,
  };
  return implied;
};

const RETRY_AFTER = {
  'Retry-After': {
    description: 'Seconds to wait before retrying (the same as `retryAfterSeconds`).',
    schema: { type: 'integer', minimum: 1 },
  },
};

/** Each code with its words, as a list for the description. */
const wordsList = (codes: string[]): string => {
  const catalog = refusalCatalog();
  return codes
    .map((code) => {
      const words = catalog.get(code)?.words;
      return `- \`${code}\`${words ? `: "${words}"` : ''}`;
    })
    .join('\n');
};

/**
 * A refusal answer: its words (the operation's, then each code's), its body (the error shape, or
 * the operation's refusal schema, with the codes it can carry) and its example, the body and
 * the example as references to `components.schemas` and `components.examples`, where answers
 * that carry the same body share it. `implied`: the codes the contract implies, shared under
 * their own name, when the operation adds codes of its own to them.
 */
const refusalAnswer = (
  shared: Shared,
  name: string,
  refusal: { status: string; codes: string[]; description: string; implied?: SharedRefusal | undefined },
  schema: JsonSchema | undefined,
  headers: Answer['headers'] | undefined,
): Answer => {
  const { status, codes, description, implied } = refusal;
  const own = codes.filter((code) => !implied?.codes.includes(code));
  const code =
    implied && own.length > 0 && own.length < codes.length
      ? {
          anyOf: [
            sharedSchema(shared, `${implied.name}Code`, { type: 'string', enum: implied.codes }),
            { type: 'string', enum: own },
          ],
        }
      : { type: 'string', enum: codes };
  const body: JsonSchema = {
    allOf: [
      schema ?? { $ref: '#/components/schemas/Error' },
      // This part says only which codes; the error's other fields are the first part's (a
      // validator that closes objects by default, as Redocly's example check does, must not
      // read this part as the whole error object).
      {
        type: 'object',
        properties: {
          error: {
            type: 'object',
            properties: { code },
            unevaluatedProperties: true,
          },
        },
      },
    ],
  };
  const catalog = refusalCatalog();
  const first = codes[0] as string;
  const retry = status === '503' || codes.some((code) => code === 'temporarily_busy');
  return {
    description: `${description}\n\n${wordsList(codes)}`,
    ...(headers || retry ? { headers: { ...RETRY_AFTER, ...headers } } : {}),
    content: {
      'application/json': {
        schema: sharedSchema(shared, `${name}Error`, body),
        ...sharedExample(shared, `${name}Error`, {
          error: {
            code: first,
            message: catalog.get(first)?.words ?? 'What to fix.',
            requestId: 'b6d0c7e2-5f1a-4c55-9f5e-0a3e2d1c4b7a',
          },
          ...(retry ? { retryAfterSeconds: 1 } : {}),
        }),
      },
    },
  };
};

const bodySchemaOf = (contract: Contract): JsonSchema | undefined => {
  if (!contract.body) return undefined;
  const { $schema: _draft, ...schema } = toJsonSchema(contract.body, {
    target: 'draft-2020-12',
    errorMode: 'ignore',
  }) as JsonSchema;
  return schema;
};

/** Adds the words of lib/openapi/operations.ts to a converted schema's fields. */
const describeFields = (schema: JsonSchema, words: Record<string, string>, at = ''): JsonSchema => {
  const described: JsonSchema = { ...schema };
  if (at && words[at] && !described.description) described.description = words[at];
  if (schema.properties)
    described.properties = Object.fromEntries(
      Object.entries(schema.properties as Record<string, JsonSchema>).map(([key, value]) => [
        key,
        describeFields(value, words, at ? `${at}.${key}` : key),
      ]),
    );
  if (schema.items) described.items = describeFields(schema.items, words, `${at}[]`);
  for (const key of ['oneOf', 'anyOf'])
    if (Array.isArray(schema[key]))
      described[key] = schema[key].map((part: JsonSchema) => describeFields(part, words, at));
  return described;
};

/** An answer API Gateway gives itself, before any code of ours: `{ "message" }`, not the error shape. */
const gatewayAnswer = (description: string, message: string): Answer => ({
  description,
  content: {
    'application/json': {
      schema: { type: 'object', properties: { message: { type: 'string' } } },
      example: { message },
    },
  },
});

/**
 * What the operations share, stated once in the document's components and referred to: every
 * refusal answer (`components.responses`) and the examples of the named answer schemas
 * (`components.examples`). Filled as the operations are made.
 */
interface Shared {
  responses: Record<string, Answer>;
  schemas: Record<string, JsonSchema>;
  examples: Record<string, { value: unknown }>;
}

/**
 * A reference to `value` in the components' `kind`: the entry already there that is the same,
 * else `value` itself, put there under `name`.
 */
const sharedEntry = <T>(entries: Record<string, T>, kind: string, name: string, value: T) => {
  const text = JSON.stringify(value);
  const same = Object.keys(entries).find((known) => JSON.stringify(entries[known]) === text);
  if (!same) {
    if (entries[name]) throw new Error(`two different ${kind} are named ${name}`);
    entries[name] = value;
  }
  return { $ref: `#/components/${kind}/${same ?? name}` };
};

/** A reference to a refusal answer in `components.responses` (see sharedEntry). */
const sharedAnswer = (shared: Shared, name: string, answer: Answer) =>
  sharedEntry(shared.responses, 'responses', name, answer);

/** A reference to a schema in `components.schemas` (see sharedEntry). */
const sharedSchema = (shared: Shared, name: string, schema: JsonSchema) =>
  sharedEntry(shared.schemas, 'schemas', name, schema);

/** An example of a body, as a reference to `components.examples` (see sharedEntry). */
const sharedExample = (shared: Shared, name: string, value: unknown) => {
  const reference = sharedEntry(shared.examples, 'examples', name, { value });
  return { examples: { [reference.$ref.replace('#/components/examples/', '')]: reference } };
};

const operationOf = async (route: Route, id: string, aliasOf: Route | undefined, shared: Shared) => {
  const docs = OPERATIONS[route.id];
  if (!docs) throw new Error(`lib/openapi/operations.ts has no entry for ${route.id}`);
  if (!docs.description) throw new Error(`lib/openapi/operations.ts: ${route.id} has no description`);
  const contract = await contractOf(route);
  const responses: Record<string, Answer | { $ref: string }> = {};
  for (const [status, answer] of Object.entries(docs.answers)) {
    const content = answer.content
      ? Object.fromEntries(
          Object.entries(answer.content).map(([type, media]) => {
            const schema = operationAnswer(route.id, status, type);
            const { example, ...rest } = media;
            const value = example ?? (schema ? exampleOf(schema, ANSWER_SCHEMAS) : undefined);
            // An answer of a named schema and the schema's own example: named after the schema.
            const name =
              example === undefined && schema?.$ref
                ? String(schema.$ref).replace('#/components/schemas/', '')
                : `${route.id}${status}`;
            return [
              type,
              {
                ...(schema ? { schema } : {}),
                ...rest,
                ...(value === undefined ? {} : sharedExample(shared, name, value)),
              },
            ];
          }),
        )
      : undefined;
    responses[status] = { ...answer, ...(content ? { content } : {}) };
  }
  const impliedByStatus = impliedRefusals(route, contract);
  const statuses = [...new Set([...Object.keys(impliedByStatus), ...Object.keys(docs.refusals)])].sort();
  for (const status of statuses) {
    const own = docs.refusals[status];
    const implied = impliedByStatus[status];
    const codes = [...new Set([...(implied?.codes ?? []), ...(own?.codes ?? [])])];
    if (codes.length === 0) throw new Error(`${route.id} ${status}: no refusal code`);
    const catalog = refusalCatalog();
    for (const code of codes) {
      const entry = catalog.get(code);
      if (!entry) throw new Error(`${route.id} ${status}: no refusal catalog has the code \`${code}\``);
      // The edge answers a code with its kind's status: the document lists it under that one.
      if (String(entry.status) !== status)
        throw new Error(
          `${route.id} ${status}: \`${code}\` is answered with ${entry.status} (its kind's status), not ${status}`,
        );
    }
    // Named for what all its operations share when the contract alone implies it; else after the
    // first operation that answers it (another that answers the same refers to that one).
    responses[status] = sharedAnswer(
      shared,
      implied && !own ? implied.name : `${route.id}${status}`,
      refusalAnswer(
        shared,
        implied && !own ? implied.name : `${route.id}${status}`,
        { status, codes, description: own?.description ?? implied?.description ?? '', implied },
        operationRefusal(route.id, status),
        own?.headers,
      ),
    );
  }
  if (UNSAFE.has(route.method))
    responses['413'] = sharedAnswer(
      shared,
      'PayloadTooLarge',
      gatewayAnswer(SHARED_REFUSAL_WORDS.PayloadTooLarge, 'Request Entity Too Large'),
    );
  // API Gateway's own throttle (the stage's rate, or a Dispatcher route's): any route, before our code.
  responses['429'] = sharedAnswer(
    shared,
    'Throttled',
    gatewayAnswer(SHARED_REFUSAL_WORDS.Throttled, 'Too Many Requests'),
  );
  const converted = bodySchemaOf(contract);
  const bodySchema = converted
    ? describeFields(converted, docs.requestBody?.fieldDescriptions ?? {})
    : docs.requestBody?.schema;
  const maxBytes = contract.rawBody?.maxBytes ?? contract.maxBodyBytes;
  const description = aliasOf
    ? `The specification's path of \`${route.method} ${route.path}\` (\`${route.method} {base_url}${servedPaths(
        route,
      )
        .find((served) => served.id === id)
        ?.path.replace(
          /\{(\w+)\}/g,
          ':$1',
        )}\`): the same function, session, rules and answers. ${docs.description ?? ''}`
    : docs.description;
  return {
    operationId: id,
    summary: route.summary,
    ...(description ? { description } : {}),
    ...(route.auth === 'session' ? {} : { security: SECURITY[route.auth] }),
    ...(docs.parameters ? { parameters: docs.parameters } : {}),
    ...(bodySchema && UNSAFE.has(route.method)
      ? {
          requestBody: {
            required: true,
            ...(maxBytes ? { 'x-max-body-bytes': maxBytes } : {}),
            ...(docs.requestBody?.description ? { description: docs.requestBody.description } : {}),
            content: {
              'application/json': {
                schema: bodySchema,
                ...sharedExample(
                  shared,
                  `${route.id}Request`,
                  docs.requestBody?.example ?? exampleOf(bodySchema, ANSWER_SCHEMAS),
                ),
              },
            },
          },
        }
      : {}),
    responses,
  };
};

/** The whole document, as the code says it now. */
export const buildDocument = async () => {
  const { MAX_BODY_BYTES } = await import('#http/handler.ts');
  const paths: Record<string, Record<string, unknown>> = {};
  const shared: Shared = { responses: {}, schemas: {}, examples: {} };
  for (const route of routes)
    for (const served of servedPaths(route)) {
      paths[served.path] ??= {};
      (paths[served.path] as Record<string, unknown>)[route.method.toLowerCase()] = await operationOf(
        route,
        served.id,
        served.id === route.id ? undefined : route,
        shared,
      );
    }
  return {
    openapi: '3.1.0',
    info: INFO,
    'x-max-body-bytes': MAX_BODY_BYTES,
    servers: SERVERS,
    security: SECURITY.session,
    paths,
    components: {
      securitySchemes: SECURITY_SCHEMES,
      schemas: { Error: ERROR_SCHEMA, ...ANSWER_SCHEMAS, ...shared.schemas },
      responses: Object.fromEntries(Object.entries(shared.responses).sort(([a], [b]) => a.localeCompare(b))),
      examples: Object.fromEntries(Object.entries(shared.examples).sort(([a], [b]) => a.localeCompare(b))),
    },
  };
};

/** The document's text, formatted as `npm run lint` (biome) keeps JSON. */
export const documentText = async () =>
  execFileSync(
    path.join(REPO_ROOT, 'node_modules/.bin/biome'),
    ['format', `--stdin-file-path=${path.relative(REPO_ROOT, DOCUMENT_PATH)}`],
    { cwd: REPO_ROOT, input: JSON.stringify(await buildDocument()), encoding: 'utf8', maxBuffer: 64 << 20 },
  );

export const CLIENT_TYPES_PATH = path.join(REPO_ROOT, 'lib/client/schema.ts');
export const CLIENT_FACTS_PATH = path.join(REPO_ROOT, 'lib/client/facts.ts');

/**
 * The codes a refusal body can carry: those of its `error.code` (an enum, or the enums it is any
 * of, some of them shared schemas of `schemas`).
 */
export const bodyCodes = (body: JsonSchema | undefined, schemas: Record<string, JsonSchema>): string[] => {
  const enumOf = (schema: JsonSchema | undefined): string[] =>
    schema?.$ref
      ? enumOf(schemas[String(schema.$ref).replace('#/components/schemas/', '')])
      : [...(schema?.enum ?? []), ...(schema?.anyOf ?? []).flatMap(enumOf)];
  return enumOf(body?.allOf?.[1]?.properties?.error?.properties?.code);
};

/** Every refusal code the document names: those of each refusal body of its `schemas`. */
const refusalCodes = (schemas: Record<string, JsonSchema>): string[] => [
  ...new Set(Object.values(schemas).flatMap((schema) => bodyCodes(schema, schemas))),
];

/** A JSON pointer's segment (RFC 6901): `~` and `/` escaped. */
const pointerSegment = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * The document the client's types are made of: the document itself, but a route's other paths
 * (`alsoAt`) refer to the route's own operation, so their types are its types, written once.
 */
const typedDocument = (documentJson: string): OpenAPI3 => {
  const document = JSON.parse(documentJson) as { paths: Record<string, Record<string, unknown>> };
  for (const route of routes) {
    const method = route.method.toLowerCase();
    for (const { path: alias } of route.alsoAt ?? [])
      (document.paths[alias] as Record<string, unknown>)[method] = {
        $ref: `#/paths/${pointerSegment(route.path)}/${method}`,
      };
  }
  // The document's own shape (checked by Redocly in npm run lint) is what openapi-typescript reads.
  return document as unknown as OpenAPI3;
};

/** The typed client's types (openapi-typescript) and facts (which requests take an Idempotency-Key, every refusal code). */
export const clientTexts = async (documentJson: string): Promise<{ types: string; facts: string }> => {
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  const document = JSON.parse(documentJson) as {
    paths: Record<
      string,
      Record<string, { parameters?: { name: string; in: string }[]; responses: Record<string, JsonSchema> }>
    >;
    components: { schemas: Record<string, JsonSchema> };
  };
  const types = `// Made by npm run openapi from docs/api/openapi.json (openapi-typescript): do not edit.\n${astToString(await openapiTS(typedDocument(documentJson)))}`;
  const keyed: string[] = [];
  const codes = new Set(refusalCodes(document.components.schemas));
  for (const [documentedPath, methods] of Object.entries(document.paths))
    for (const [method, operation] of Object.entries(methods)) {
      if (
        operation.parameters?.some(
          (parameter) => parameter.in === 'header' && parameter.name === 'Idempotency-Key',
        )
      )
        keyed.push(`${method.toUpperCase()} ${documentedPath}`);
    }
  const facts = `// Made by npm run openapi from docs/api/openapi.json: do not edit.

/** The requests that take an Idempotency-Key (the client makes one for each). */
export const TAKES_IDEMPOTENCY_KEY: readonly string[] = ${JSON.stringify(keyed.sort())};

/** Every refusal code the API answers with. */
export type RefusalCode =
${[...codes]
  .sort()
  .map((code) => `  | '${code}'`)
  .join('\n')};
`;
  return { types, facts };
};

const formatted = (text: string, file: string) =>
  execFileSync(
    path.join(REPO_ROOT, 'node_modules/.bin/biome'),
    ['format', `--stdin-file-path=${path.relative(REPO_ROOT, file)}`],
    {
      cwd: REPO_ROOT,
      input: text,
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    },
  );

/** Every file `npm run openapi` writes, with its text. */
export const generatedFiles = async (): Promise<{ file: string; text: string }[]> => {
  const document = await documentText();
  const { types, facts } = await clientTexts(document);
  return [
    { file: DOCUMENT_PATH, text: document },
    // A build product that biome does not check (it is not committed): as openapi-typescript writes it.
    { file: CLIENT_TYPES_PATH, text: types },
    { file: CLIENT_FACTS_PATH, text: formatted(facts, CLIENT_FACTS_PATH) },
  ];
};

/**
 * The typed client's types from the committed document: what `npm install` runs (the `prepare`
 * script). The types are a build product, never committed: openapi-typescript writes each
 * operation's parameters and answers out in full, so the file repeats itself by design, and the
 * document it is made from is the source (docs/decisions.md, "The typed client's types are made
 * at install").
 */
export const writeClientTypes = async (): Promise<void> => {
  const { types } = await clientTexts(readFileSync(DOCUMENT_PATH, 'utf8'));
  writeFileSync(CLIENT_TYPES_PATH, types);
  console.log(
    `wrote ${path.relative(REPO_ROOT, CLIENT_TYPES_PATH)} from ${path.relative(REPO_ROOT, DOCUMENT_PATH)}`,
  );
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (process.argv.includes('--client-types')) await writeClientTypes();
  else
    for (const { file, text } of await generatedFiles()) {
      writeFileSync(file, text);
      console.log(`wrote ${path.relative(REPO_ROOT, file)}`);
    }
}
