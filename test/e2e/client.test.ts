import { describe, expect, it } from 'vitest';
import { createClient, Refusal } from '../../lib/client/index.ts';
import { localClient, sharedCloud } from '../support/local-cloud.ts';

/**
 * The typed client (lib/client) against the shared `npm start`: a session's calls, a refusal as a
 * typed error carrying the server's words and request id, bad input refused by the server, and an
 * added Stack sent with an Idempotency-Key the client made.
 */

const cloud = localClient(sharedCloud);

/** The client on the shared server, recording the headers of what it sends. */
const clientOf = (token: string) => {
  const sent: Headers[] = [];
  const client = createClient({
    baseUrl: sharedCloud().url,
    token,
    fetch: (async (request: Request) => {
      sent.push(request.headers);
      return fetch(request);
    }) as typeof fetch,
  });
  return { client, sent };
};

describe('the typed client on npm start', () => {
  it('reads as the session, and a refusal is a Refusal with the server’s code, words and request id', async () => {
    const tenant = await cloud.newTenant('client');
    const { client } = clientOf(tenant.token);
    const { data: me } = await client.GET('/v1/me');
    expect(me?.slug).toBe(tenant.login);

    // Not paying yet: adding a Stack is refused, in the server's words.
    const refused = await client.POST('/v1/stacks', { body: { plan: 'standard' } }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Refusal);
    const raw = await cloud.as(tenant, 'POST', '/v1/stacks', { plan: 'standard' });
    expect(refused).toMatchObject({
      status: 409,
      code: raw.body.error.code,
      message: raw.body.error.message,
    });
    expect((refused as Refusal).requestId).toMatch(/\S/);

    // Bad input the types would stop, sent anyway: the server's 400 comes back typed.
    const bad = await client.POST('/v1/stacks', { body: { plan: 'gold' as 'pro' } }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(Refusal);
    expect(bad).toMatchObject({ status: 400, code: 'invalid_field', field: 'plan' });
  });

  it('adds a Stack with an Idempotency-Key it made', async () => {
    const tenant = await cloud.payingTenant('client-pay', 'plus', { dispatcher: false });
    const { client, sent } = clientOf(tenant.token);
    const { data, response } = await client.POST('/v1/stacks', { body: { plan: 'standard' } });
    expect(response.status).toBe(201);
    expect(data?.plan).toBe('standard');
    expect(sent.at(-1)?.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
