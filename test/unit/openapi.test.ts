import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { CREDENTIAL_BODY_MAX_BYTES, CREDENTIAL_MATERIAL_MAX_CHARS } from '#core/credentials.ts';
import { Refusal } from '#core/refusal.ts';
import { ErrorBodySchema, errorBody } from '#http/errors.ts';
import { MAX_BODY_BYTES } from '#http/handler.ts';
import { MAX_OUTCOME_BODY_BYTES } from '../../functions/api/post-dispatcher-export-outcome.ts';
import { MAX_WEBHOOK_BYTES } from '../../functions/webhooks/processor.ts';
import { bodyCodes, generatedFiles } from '../../lib/openapi/generate.ts';
import { refusalCatalog } from '../../lib/openapi/refusals.ts';
import { routes, servedPaths } from '../../lib/routes.ts';
import { answerDisagreements } from '../support/openapi-schema.ts';

const document = JSON.parse(
  readFileSync(path.resolve(import.meta.dirname, '../../docs/api/openapi.json'), 'utf8'),
);
// biome-ignore lint/suspicious/noExplicitAny: the tests read the document's JSON freely
type Json = any;
/** What a `$ref` of the document names (`#/components/...`), or the object itself. */
const resolved = (object: Json): Json =>
  object?.$ref
    ? resolved(
        object.$ref
          .replace('#/', '')
          .split('/')
          .reduce((at: Json, key: string) => at[key], document),
      )
    : object;

describe('the OpenAPI document is made from the code', () => {
  it('is what `npm run openapi` writes now, and so are the typed client’s types (run it after changing a route, a schema or a refusal)', async () => {
    for (const { file, text } of await generatedFiles())
      expect(readFileSync(file, 'utf8') === text, `${file} is stale: run npm run openapi`).toBe(true);
  }, 120_000);

  it("documents the error body as errors.ts builds it (its valibot schema, the document's Error)", () => {
    const refusal = new Refusal('conflict', 'stack_cap_reached', 'Too many (GET /v1/stacks).', {
      field: 'plan',
      extra: { stackCap: 5 },
    });
    expect(v.safeParse(ErrorBodySchema, errorBody(refusal, 'r-1')).success).toBe(true);
    expect(v.safeParse(ErrorBodySchema, { error: { code: 'x', message: 'y' } }).success).toBe(false);
  });

  it('lists, for each refusal answer, codes the code answers, each with its words', () => {
    const catalog = refusalCatalog();
    for (const methods of Object.values(document.paths as Record<string, Record<string, Json>>))
      for (const operation of Object.values(methods))
        for (const [status, reference] of Object.entries(operation.responses as Record<string, Json>)) {
          // 413 and 429 are API Gateway's own answers, not the error shape.
          if (Number(status) < 400 || status === '413' || status === '429') continue;
          const answer = resolved(reference);
          const codes = bodyCodes(
            resolved(answer.content['application/json'].schema),
            document.components.schemas,
          );
          expect(
            answer.content['application/json'].examples,
            `${operation.operationId} ${status}`,
          ).toBeDefined();
          expect(codes.length, `${operation.operationId} ${status}`).toBeGreaterThan(0);
          for (const code of codes) {
            expect(catalog.has(code) || code === 'unknown_field', `${operation.operationId} ${code}`).toBe(
              true,
            );
            expect(answer.description).toContain(`\`${code}\``);
          }
        }
  });
});

describe('the contract check reads the answers the operations share (components.responses)', () => {
  const refusal = (code: string) => ({ error: { code, message: 'What to fix.', requestId: 'r-1' } });

  it('holds an answer to the shared refusal its operation refers to: its codes pass, another does not', () => {
    expect(document.paths['/v1/stacks'].post.responses['401'].$ref).toBe(
      '#/components/responses/Unauthenticated',
    );
    expect(
      answerDisagreements('POST', '/v1/stacks', { status: 401, json: refusal('invalid_session') }),
    ).toEqual([]);
    expect(
      answerDisagreements('POST', '/v1/stacks', { status: 401, json: refusal('stack_cap_reached') }),
    ).toEqual(['POST /v1/stacks 401: $.error.code: "stack_cap_reached" not in the enum']);
  });

  it("holds an operation's own codes added to the implied ones: both pass, another does not", () => {
    const at = (code: string) =>
      answerDisagreements('POST', '/v1/credentials/acme', { status: 400, json: refusal(code) });
    expect([...at('invalid_json'), ...at('invalid_credential_name')]).toEqual([]);
    expect(at('stack_cap_reached')).toHaveLength(1);
  });
});

describe('what the reference page shows of each operation (issue 39; Redocly checks it too in npm run lint)', () => {
  const operations = Object.values(document.paths as Record<string, Record<string, Json>>).flatMap(
    (methods) => Object.values(methods),
  );

  it('every operation has a summary, a description and its error answers (4xx, 500, 503)', () => {
    expect(operations.length).toBeGreaterThanOrEqual(routes.length);
    for (const operation of operations) {
      expect(operation.summary, operation.operationId).toBeTruthy();
      expect(operation.description, operation.operationId).toBeTruthy();
      const statuses = Object.keys(operation.responses);
      expect(
        statuses.some((status) => status.startsWith('4')),
        operation.operationId,
      ).toBe(true);
      expect(statuses, operation.operationId).toEqual(expect.arrayContaining(['429', '500', '503']));
    }
  });

  it('every request and answer body has an example', () => {
    for (const operation of operations) {
      const bodies = [
        ...Object.entries(operation.requestBody?.content ?? {}).map(([type, media]) => [
          'request',
          type,
          media,
        ]),
        ...Object.entries(operation.responses as Record<string, Json>).flatMap(([status, answer]) =>
          Object.entries(resolved(answer).content ?? {}).map(([type, media]) => [status, type, media]),
        ),
      ] as [string, string, Json][];
      for (const [at, type, media] of bodies)
        expect(media.example ?? media.examples, `${operation.operationId} ${at} ${type}`).toBeDefined();
    }
  });
});

describe('the OpenAPI document stays current with lib/routes.ts', () => {
  it('documents every route, and nothing that is not a route', () => {
    const documented = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(
      ([p, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${p}`),
    );
    expect(documented.sort()).toEqual(
      routes.flatMap((route) => servedPaths(route).map(({ path: p }) => `${route.method} ${p}`)).sort(),
    );
  });

  it('names each operation after its route id (a path of `alsoAt`, after its own id)', () => {
    for (const route of routes)
      for (const { path: p, id } of servedPaths(route))
        expect(document.paths[p][route.method.toLowerCase()].operationId).toBe(id);
  });

  it("documents a route's other paths as the route itself: the same parameters, body and answers", () => {
    const withAliases = routes.filter((route) => route.alsoAt?.length);
    expect(withAliases.map((route) => route.id).sort()).toEqual(['GetCredentials', 'PostCredential']);
    for (const route of withAliases) {
      const method = route.method.toLowerCase();
      const { operationId: _id, description: _text, ...own } = document.paths[route.path][method];
      for (const { path: p } of route.alsoAt ?? []) {
        const { operationId: _other, description, ...other } = document.paths[p][method];
        expect(other, p).toEqual(own);
        expect(description, p).toContain(`${route.method} ${route.path}`);
      }
    }
  });

  it('states the body limits the handlers enforce: the general one, and the Credential provisioning’s own', () => {
    expect(document['x-max-body-bytes']).toBe(MAX_BODY_BYTES);
    const provisioning = document.paths['/v1/credentials/{name}'].post.requestBody;
    expect(provisioning['x-max-body-bytes']).toBe(CREDENTIAL_BODY_MAX_BYTES);
    expect(provisioning.content['application/json'].schema.properties.material.maxLength).toBe(
      CREDENTIAL_MATERIAL_MAX_CHARS,
    );
  });

  it('states the processor webhook’s own limit and the Dispatcher’s export outcome’s, each on its request body', () => {
    const webhook = document.paths['/v1/webhooks/processor'].post.requestBody;
    expect(webhook['x-max-body-bytes']).toBe(MAX_WEBHOOK_BYTES);
    expect(MAX_WEBHOOK_BYTES).not.toBe(MAX_BODY_BYTES);
    const outcome = document.paths['/v1/dispatcher/exports/{exportId}/outcome'].post.requestBody;
    expect(outcome['x-max-body-bytes']).toBe(MAX_OUTCOME_BODY_BYTES);
  });
});
