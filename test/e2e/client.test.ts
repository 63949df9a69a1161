import { describe, expect, it } from 'vitest';
import { createClient, Refusal } from '../../lib/client/index.ts';
import { localClient, sharedCloud } from '../support/local-cloud.ts';

/**
 * The typed client (lib/client) against the shared `npm start`: a session's calls, a refusal as a
 * typed error carrying the server's words and request id, bad input refused by the server, and a
 * lost answer (the request reached the server, the connection dropped before its answer came back):
 * a GET and a POST with the Idempotency-Key the client made are sent again and applied once; a POST
 * without one is not sent again.
 */

const cloud = localClient(sharedCloud);

/**
 * The client on the shared server, recording what it sends; `loseAnswers` answers are lost: the
 * request is carried out by the server, then the client gets a network error instead of the answer.
 */
const clientOf = (token: string, loseAnswers = 0) => {
  const sent: { method: string; url: string; headers: Headers }[] = [];
  let toLose = loseAnswers;
  const client = createClient({
    baseUrl: sharedCloud().url,
    token,
    sleep: async () => undefined,
    fetch: (async (request: Request) => {
      sent.push({ method: request.method, url: request.url, headers: request.headers });
      const response = await fetch(request);
      if (toLose > 0) {
        toLose -= 1;
        await response.body?.cancel();
        throw new TypeError('fetch failed: the connection dropped before the answer');
      }
      return response;
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

    // Bad input the types would stop, sent anyway: the server's 400 comes back typed, with its words.
    const bad = await client.POST('/v1/stacks', { body: { plan: 'gold' as 'pro' } }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(Refusal);
    const rawBad = await cloud.as(tenant, 'POST', '/v1/stacks', { plan: 'gold' });
    expect(bad).toMatchObject({
      status: 400,
      code: 'invalid_field',
      field: 'plan',
      message: rawBad.body.error.message,
    });
    expect((bad as Refusal).requestId).toMatch(/\S/);
  });

  it('a lost answer: a GET is sent again; a POST without an Idempotency-Key is not, and its network error comes back as it is', async () => {
    const tenant = await cloud.newTenant('client-lost');
    const get = clientOf(tenant.token, 1);
    const { data: me } = await get.client.GET('/v1/me');
    expect(me?.slug).toBe(tenant.login);
    expect(get.sent.map((s) => s.method)).toEqual(['GET', 'GET']);

    const post = clientOf(tenant.token, 1);
    const lost = await post.client
      .POST('/v1/billing/waitlist', { body: { plan: 'pro' } })
      .catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(TypeError);
    expect(lost).not.toBeInstanceOf(Refusal);
    expect(post.sent).toHaveLength(1);
    expect(post.sent[0]?.headers.get('idempotency-key')).toBeNull();
    // The server did carry it out, once: why the client must not send it again on its own.
    const after = await cloud.as(tenant, 'GET', '/v1/me');
    expect(after.body.waitlist.map((entry: { plan: string }) => entry.plan)).toEqual(['pro']);
  });

  it('adds a Stack with an Idempotency-Key it made; a lost answer is sent again with the same key and adds one Stack', async () => {
    const tenant = await cloud.payingTenant('client-pay', 'plus', { dispatcher: false });
    const before = (await cloud.as(tenant, 'GET', '/v1/stacks')).body.stacks.length;
    const { client, sent } = clientOf(tenant.token, 1);
    const { data, response } = await client.POST('/v1/stacks', { body: { plan: 'standard' } });
    expect(response.status).toBe(201);
    expect(data?.plan).toBe('standard');
    expect(sent).toHaveLength(2);
    const [first, second] = sent.map((s) => s.headers.get('idempotency-key'));
    expect(first).toMatch(/^[0-9a-f-]{36}$/);
    expect(second).toBe(first);
    const stacks = (await cloud.as(tenant, 'GET', '/v1/stacks')).body.stacks;
    expect(stacks).toHaveLength(before + 1);
    expect(stacks.map((stack: { stackId: string }) => stack.stackId)).toContain(data?.stackId);
  });
});
