import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { gatewayForFile } from '../support/file-gateway.ts';
import type { TestControlPlane } from '../support/gateway.ts';
import { storedSnapshot } from '../support/stored.ts';

/**
 * The limits the OpenAPI document states for provisioning a Credential are the ones enforced:
 * read from docs/api/openapi.json, a request at each limit is accepted and one a byte (or a
 * character) over it is refused with nothing written, through the local API Gateway and the
 * handler against DynamoDB Local.
 */

const document = JSON.parse(
  readFileSync(path.resolve(import.meta.dirname, '../../docs/api/openapi.json'), 'utf8'),
);
const operation = document.paths['/v1/credentials/{name}'].post;
const MAX_BODY_BYTES: number = operation.requestBody['x-max-body-bytes'];
const MATERIAL_MAX: number =
  operation.requestBody.content['application/json'].schema.properties.material.maxLength;

const { api } = gatewayForFile({ processor: true });

type Tenant = Awaited<ReturnType<TestControlPlane['subscribe']>>;

/** A JSON body padded with whitespace (still the same JSON) to exactly `bytes` bytes. */
const bodyOf = (fields: Record<string, unknown>, bytes: number): string => {
  const json = JSON.stringify(fields);
  const size = Buffer.byteLength(json);
  if (size > bytes) throw new Error(`the fields alone take ${size} bytes`);
  return `${json}${' '.repeat(bytes - size)}`;
};

const send = (tenant: Tenant, name: string, rawBody: string) =>
  api.call('POST', `/v1/credentials/${name}`, {
    token: tenant.sessionToken,
    rawBody,
    headers: { 'content-type': 'application/json' },
  });

let tenant: Tenant;
let consent: { textVersion: string };
beforeAll(async () => {
  tenant = await api.subscribe({ plan: 'plus' });
  const catalog = await api.call('GET', '/v1/credentials/catalog', { token: tenant.sessionToken });
  consent = { textVersion: catalog.json.consent.textVersion };
});

describe('the documented limits of POST /v1/credentials/{name}', () => {
  it('the document states them: a body limit of its own, and the material’s length', () => {
    expect(MAX_BODY_BYTES).toBeGreaterThan(document['x-max-body-bytes']);
    // The longest material fits the body even when every character is escaped.
    expect(MAX_BODY_BYTES).toBeGreaterThanOrEqual(2 * MATERIAL_MAX + 1024);
  });

  it('a body of exactly the documented bytes is accepted; one byte more is body_too_large, nothing written', async () => {
    const fields = { provider: 'provider-c', kind: 'api_key', material: 'k'.repeat(MATERIAL_MAX) };
    const before = await storedSnapshot(tenant);
    const over = await send(tenant, 'body-over', bodyOf(fields, MAX_BODY_BYTES + 1));
    expect([over.status, over.json.error.code]).toEqual([400, 'body_too_large']);
    expect(over.json.error.message).toContain(String(MAX_BODY_BYTES));
    expect(await storedSnapshot(tenant)).toBe(before);

    const at = await send(tenant, 'body-at', bodyOf(fields, MAX_BODY_BYTES));
    expect(at.status, JSON.stringify(at.json)).toBe(201);
  });

  it('material of exactly the documented length is accepted; one character more is refused on the field, nothing written', async () => {
    const at = await send(
      tenant,
      'material-at',
      JSON.stringify({ provider: 'provider-a', kind: 'api_key', material: 'm'.repeat(MATERIAL_MAX) }),
    );
    expect(at.status, JSON.stringify(at.json)).toBe(201);

    const before = await storedSnapshot(tenant);
    const over = await send(
      tenant,
      'material-over',
      JSON.stringify({ provider: 'provider-a', kind: 'api_key', material: 'm'.repeat(MATERIAL_MAX + 1) }),
    );
    expect([over.status, over.json.error.code, over.json.error.field]).toEqual([
      400,
      'invalid_field',
      'material',
    ]);
    expect(await storedSnapshot(tenant)).toBe(before);
  });

  it('the largest auth file, all of it characters JSON escapes, fits the body', async () => {
    // `{"k":"\"\"…"}`: every quote of the file doubles its backslash in the body, and so does
    // every backslash: the body carries the file at twice its size.
    const inner = '\\"'.repeat((MATERIAL_MAX - '{"k":""}'.length) / 2);
    const file = `{"k":"${inner}"}`;
    expect(file.length).toBe(MATERIAL_MAX);
    expect(JSON.parse(file)).toHaveProperty('k');
    const fields = { provider: 'provider-b', kind: 'auth_file', material: file, consent };
    expect(Buffer.byteLength(JSON.stringify(fields))).toBeGreaterThan(2 * MATERIAL_MAX);
    const created = await send(tenant, 'escaped-file', JSON.stringify(fields));
    expect(created.status, JSON.stringify(created.json)).toBe(201);
  });
});
