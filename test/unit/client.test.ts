import { describe, expect, expectTypeOf, it } from 'vitest';
import { createClient, Refusal, type RefusalCode, retryAfterMs } from '../../lib/client/index.ts';

/** A fetch that answers from a script and records what it was sent. */
const scripted = (answers: (Response | Error)[]) => {
  const sent: { method: string; url: string; headers: Headers; body: string }[] = [];
  const fetch = async (request: Request) => {
    sent.push({
      method: request.method,
      url: request.url,
      headers: request.headers,
      body: await request.text(),
    });
    const next = answers.shift();
    if (!next) throw new Error('no more answers');
    if (next instanceof Error) throw next;
    return next;
  };
  return { sent, fetch: fetch as typeof globalThis.fetch };
};
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const refusal = (status: number, code: string, extra: Record<string, unknown> = {}) =>
  json(status, { error: { code, message: `words of ${code}`, requestId: `req-${code}` }, ...extra });

const clientWith = (answers: (Response | Error)[]) => {
  const script = scripted(answers);
  const waits: number[] = [];
  let keys = 0;
  const client = createClient({
    baseUrl: 'http://api.test',
    token: 'tok_1',
    fetch: script.fetch,
    sleep: async (ms) => {
      waits.push(ms);
    },
    idempotencyKey: () => `key-${++keys}`,
  });
  return { client, sent: script.sent, waits };
};

describe('the typed client (lib/client)', () => {
  it('sends the bearer token, and another one after setToken', async () => {
    const { client, sent } = clientWith([json(200, { stacks: [] }), json(200, { stacks: [] })]);
    await client.GET('/v1/stacks');
    client.setToken('tok_2');
    await client.GET('/v1/stacks');
    expect(sent.map((s) => s.headers.get('authorization'))).toEqual(['Bearer tok_1', 'Bearer tok_2']);
  });

  it('makes an Idempotency-Key for the requests that take one, the same on every retry, and none for others', async () => {
    const { client, sent } = clientWith([
      refusal(503, 'subscription_busy', { retryAfterSeconds: 2 }),
      json(201, { stackId: 's2' }),
      json(200, {}),
    ]);
    await client.POST('/v1/stacks', { body: { plan: 'pro' } });
    await client.POST('/v1/stacks/preview', { body: { plan: 'pro' } });
    expect(sent.map((s) => s.headers.get('idempotency-key'))).toEqual(['key-1', 'key-1', null]);
    expect(sent[1]?.body).toBe('{"plan":"pro"}');
  });

  it('retries 429 and 503 after what Retry-After says, else with a doubling backoff, then gives the answer', async () => {
    const { client, sent, waits } = clientWith([
      refusal(429, 'too_many_requests' as string, {}),
      new Response('', { status: 503, headers: { 'retry-after': '3' } }),
      json(200, { stacks: [] }),
    ]);
    const { data } = await client.GET('/v1/stacks');
    expect(data).toEqual({ stacks: [] });
    expect(sent).toHaveLength(3);
    expect(waits).toEqual([250, 3000]);
    const busy = clientWith([
      refusal(503, 'temporarily_busy', { retryAfterSeconds: 1 }),
      refusal(503, 'temporarily_busy', { retryAfterSeconds: 1 }),
      refusal(503, 'temporarily_busy', { retryAfterSeconds: 1 }),
      refusal(503, 'temporarily_busy', { retryAfterSeconds: 1 }),
    ]);
    const error = await busy.client.GET('/v1/stacks').catch((e: unknown) => e);
    expect(busy.sent).toHaveLength(4);
    expect(error).toBeInstanceOf(Refusal);
    expect(error).toMatchObject({ status: 503, code: 'temporarily_busy' });
  });

  it('retries a network error only for an idempotent request: a GET or a keyed POST, never a plain POST', async () => {
    const get = clientWith([new TypeError('fetch failed'), json(200, { stacks: [] })]);
    expect((await get.client.GET('/v1/stacks')).data).toEqual({ stacks: [] });
    expect(get.sent).toHaveLength(2);
    const keyed = clientWith([new TypeError('fetch failed'), json(201, { stackId: 's2' })]);
    await keyed.client.POST('/v1/stacks', { body: { plan: 'pro' } });
    expect(keyed.sent).toHaveLength(2);
    const plain = clientWith([new TypeError('fetch failed'), json(200, {})]);
    await expect(plain.client.POST('/v1/stacks/preview', { body: { plan: 'pro' } })).rejects.toThrow(
      'fetch failed',
    );
    expect(plain.sent).toHaveLength(1);
  });

  it('throws a refusal as a Refusal: its code, its words, its request id and extra fields', async () => {
    const { client } = clientWith([refusal(409, 'stack_cap_reached', { stackCap: 5 })]);
    const error = await client.POST('/v1/stacks', { body: { plan: 'pro' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Refusal);
    expect(error).toMatchObject({
      status: 409,
      code: 'stack_cap_reached',
      message: 'words of stack_cap_reached',
      requestId: 'req-stack_cap_reached',
      body: { stackCap: 5 },
    });
    expectTypeOf<Refusal['code']>().toEqualTypeOf<RefusalCode>();
    expectTypeOf<'stack_cap_reached'>().toExtend<RefusalCode>();
    expectTypeOf<'no_such_code'>().not.toExtend<RefusalCode>();
  });

  it('reads Retry-After as seconds or as a date', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:10 GMT', Date.parse('2026-01-01T00:00:00Z'))).toBe(10_000);
    expect(retryAfterMs(null)).toBeUndefined();
  });

  it('refuses, at compile time, a body the API would refuse by its schema', () => {
    const { client } = clientWith([]);
    // Type-level only: these are never sent (the function is not called).
    const neverRun = () => {
      // @ts-expect-error `plan` must be one of standard, plus, pro
      void client.POST('/v1/stacks', { body: { plan: 'gold' } });
      // @ts-expect-error `plan` is required
      void client.POST('/v1/stacks', { body: {} });
      // @ts-expect-error unknown fields are refused
      void client.POST('/v1/stacks', { body: { plan: 'pro', extra: true } });
      void client.PUT('/v1/dispatcher/observed-state', {
        // @ts-expect-error `health` is one of healthy, unhealthy, unknown
        body: { appliedVersion: 1, health: 'fine', activeRuns: 0 },
      });
      // @ts-expect-error no such route
      void client.GET('/v1/nothing-here');
      void client.POST('/v1/stacks', { body: { plan: 'pro' } });
    };
    expect(typeof neverRun).toBe('function');
  });
});
