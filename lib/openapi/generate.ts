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
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { toJsonSchema } from '@valibot/to-json-schema';
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

/** The refusals a route's contract implies, by status, with the words of what they share. */
const impliedRefusals = (
  route: Route,
  contract: Contract,
): Record<string, { codes: string[]; description: string }> => {
  const implied: Record<string, { codes: string[]; description: string }> = {};
  if (route.auth === 'session')
    implied['401'] = {
      codes: ['missing_session', 'invalid_session', 'expired_session'],
      description: SHARED_REFUSAL_WORDS.Unauthenticated,
    };
  if (route.auth === 'dispatcher')
    implied['401'] = {
      codes: ['dispatcher_credential_required', 'invalid_dispatcher_credential'],
      description:
        'No Dispatcher credential, or one that is not valid (unknown, or rotated out more than an hour ago).',
    };
  const forbidden = [
    ...(route.auth === 'session' && contract.role === 'administrator' ? ['admin_required'] : []),
    ...(route.auth === 'session' && UNSAFE.has(route.method) ? ['origin_mismatch'] : []),
  ];
  if (forbidden.length) implied['403'] = { codes: forbidden, description: SHARED_REFUSAL_WORDS.Forbidden };
  if (UNSAFE.has(route.method)) {
    implied['400'] = {
      codes: contract.rawBody
        ? ['body_too_large']
        : ['invalid_json', 'body_too_large', 'unknown_field', 'invalid_field', 'invalid_body'],
      description: SHARED_REFUSAL_WORDS.BadRequest,
    };
    if (!contract.rawBody)
      implied['415'] = {
        codes: ['unsupported_media_type'],
        description: SHARED_REFUSAL_WORDS.UnsupportedMediaType,
      };
  }
  implied['500'] = { codes: ['internal_error'], description: SHARED_REFUSAL_WORDS.InternalError };
  implied['503'] = { codes: ['temporarily_busy'], description: SHARED_REFUSAL_WORDS.TemporarilyBusy };
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

const refusalAnswer = (
  status: string,
  codes: string[],
  description: string,
  schema: JsonSchema | undefined,
  headers: Answer['headers'] | undefined,
): Answer => {
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
            properties: { code: { type: 'string', enum: codes } },
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
        schema: body,
        example: {
          error: {
            code: first,
            message: catalog.get(first)?.words ?? 'What to fix.',
            requestId: 'b6d0c7e2-5f1a-4c55-9f5e-0a3e2d1c4b7a',
          },
          ...(retry ? { retryAfterSeconds: 1 } : {}),
        },
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

const operationOf = async (route: Route, id: string, aliasOf: Route | undefined) => {
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
            return [
              type,
              {
                ...(schema ? { schema } : {}),
                ...media,
                ...(media.example === undefined && schema
                  ? { example: exampleOf(schema, ANSWER_SCHEMAS) }
                  : {}),
              },
            ];
          }),
        )
      : undefined;
    responses[status] = { ...answer, ...(content ? { content } : {}) };
  }
  const implied = impliedRefusals(route, contract);
  const statuses = [...new Set([...Object.keys(implied), ...Object.keys(docs.refusals)])].sort();
  for (const status of statuses) {
    const own = docs.refusals[status];
    const shared = implied[status];
    const codes = [...new Set([...(shared?.codes ?? []), ...(own?.codes ?? [])])];
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
    responses[status] = refusalAnswer(
      status,
      codes,
      own?.description ?? shared?.description ?? '',
      operationRefusal(route.id, status),
      own?.headers,
    );
  }
  if (UNSAFE.has(route.method))
    responses['413'] = gatewayAnswer(SHARED_REFUSAL_WORDS.PayloadTooLarge, 'Request Entity Too Large');
  // API Gateway's own throttle (the stage's rate, or a Dispatcher route's): any route, before our code.
  responses['429'] = gatewayAnswer(SHARED_REFUSAL_WORDS.Throttled, 'Too Many Requests');
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
                example: docs.requestBody?.example ?? exampleOf(bodySchema, ANSWER_SCHEMAS),
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
  for (const route of routes)
    for (const served of servedPaths(route)) {
      paths[served.path] ??= {};
      (paths[served.path] as Record<string, unknown>)[route.method.toLowerCase()] = await operationOf(
        route,
        served.id,
        served.id === route.id ? undefined : route,
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
      schemas: { Error: ERROR_SCHEMA, ...ANSWER_SCHEMAS },
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

/** The typed client's types (openapi-typescript) and facts (which requests take an Idempotency-Key, every refusal code). */
export const clientTexts = async (documentJson: string): Promise<{ types: string; facts: string }> => {
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  const document = JSON.parse(documentJson) as {
    paths: Record<
      string,
      Record<string, { parameters?: { name: string; in: string }[]; responses: Record<string, JsonSchema> }>
    >;
  };
  const types = `// Made by npm run openapi from docs/api/openapi.json (openapi-typescript): do not edit.\n${astToString(await openapiTS(JSON.parse(documentJson)))}`;
  const keyed: string[] = [];
  const codes = new Set<string>();
  for (const [documentedPath, methods] of Object.entries(document.paths))
    for (const [method, operation] of Object.entries(methods)) {
      if (
        operation.parameters?.some(
          (parameter) => parameter.in === 'header' && parameter.name === 'Idempotency-Key',
        )
      )
        keyed.push(`${method.toUpperCase()} ${documentedPath}`);
      for (const answer of Object.values(operation.responses))
        for (const code of answer.content?.['application/json']?.schema?.allOf?.[1]?.properties?.error
          ?.properties?.code?.enum ?? [])
          codes.add(code);
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
    { file: CLIENT_TYPES_PATH, text: formatted(types, CLIENT_TYPES_PATH) },
    { file: CLIENT_FACTS_PATH, text: formatted(facts, CLIENT_FACTS_PATH) },
  ];
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const { file, text } of await generatedFiles()) {
    writeFileSync(file, text);
    console.log(`wrote ${path.relative(REPO_ROOT, file)}`);
  }
}
