import type { Context } from 'aws-lambda';
import * as v from 'valibot';
import { describe, expect, it, vi } from 'vitest';
import { type ApiEvent, httpHandler, MAX_BODY_BYTES } from '#http/handler.ts';
import type { AuthorizerContext } from '#http/principal.ts';
import { logger } from '#ports/logger.ts';
import { Refusal } from '../../functions/core/refusal.ts';

const administrator: AuthorizerContext = {
  authenticated: true,
  tenantId: 't1',
  userId: 'u1',
  role: 'administrator',
  via: 'bearer',
};

const event = (
  options: {
    body?: string;
    base64?: boolean;
    authorizer?: AuthorizerContext;
    /** The Content-Type header; `null` sends none. */
    contentType?: string | null;
  } = {},
): ApiEvent => ({
  version: '2.0',
  routeKey: 'POST /things',
  rawPath: '/things',
  rawQueryString: '',
  headers: options.contentType === null ? {} : { 'content-type': options.contentType ?? 'application/json' },
  requestContext: {
    accountId: '0',
    apiId: 'api',
    domainName: 'localhost',
    domainPrefix: 'localhost',
    http: { method: 'POST', path: '/things', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
    requestId: 'req-123',
    routeKey: 'POST /things',
    stage: '$default',
    time: '',
    timeEpoch: 0,
    ...(options.authorizer === undefined ? {} : { authorizer: { lambda: options.authorizer } }),
  },
  ...(options.body === undefined ? {} : { body: options.body }),
  isBase64Encoded: options.base64 ?? false,
});

const context = { getRemainingTimeInMillis: () => 10_000 } as Context;

const calls: unknown[] = [];
const handler = httpHandler(
  {
    auth: 'session',
    role: 'administrator',
    body: v.strictObject({ plan: v.picklist(['standard', 'plus']), note: v.optional(v.string()) }),
  },
  async ({ body, principal }) => {
    calls.push(body);
    return { status: 201, body: { received: body, tenantId: principal.tenantId } };
  },
);

const invoke = async (options: Parameters<typeof event>[0]) => {
  calls.length = 0;
  const result = await handler(event({ authorizer: administrator, ...options }), context);
  return { ...result, json: result.body ? JSON.parse(result.body) : undefined };
};

describe('HTTP conventions', () => {
  it('passes a valid body to the handler and answers with a request id', async () => {
    const result = await invoke({ body: '{"plan":"plus"}' });
    expect(result.statusCode).toBe(201);
    expect(result.json).toEqual({ received: { plan: 'plus' }, tenantId: 't1' });
    expect(result.headers?.['x-request-id']).toBe('req-123');
  });

  it('decodes base64 bodies', async () => {
    const result = await invoke({
      body: Buffer.from('{"plan":"standard"}').toString('base64'),
      base64: true,
    });
    expect(result.json.received).toEqual({ plan: 'standard' });
  });

  /** Sends `body`: a 400 whose error has `error`'s fields and a message containing `says`; the handler did not run. */
  const refused400 = async (body: string, error: Record<string, string>, says = '') => {
    const result = await invoke({ body });
    expect(result.statusCode).toBe(400);
    expect(result.json.error).toMatchObject(error);
    expect(result.json.error.message).toContain(says);
    expect(calls).toHaveLength(0);
  };

  it('malformed JSON: 400 invalid_json, handler not run', async () => {
    await refused400('{"plan":', { code: 'invalid_json', requestId: 'req-123' });
  });

  it('unknown field: 400 unknown_field naming the field', async () => {
    await refused400('{"plan":"plus","color":"red"}', { code: 'unknown_field', field: 'color' }, 'color');
  });

  it('wrong type: 400 invalid_field naming the field and what is expected', async () => {
    await refused400('{"plan":"gold"}', { code: 'invalid_field', field: 'plan' }, '"standard" | "plus"');
    await refused400('{"plan":"plus","note":5}', { code: 'invalid_field', field: 'note' });
  });

  it('missing required field: 400 naming it', async () => {
    const result = await invoke({ body: '{}' });
    expect(result.json.error).toMatchObject({ code: 'invalid_field', field: 'plan' });
    expect(result.json.error.message).toContain('required');
  });

  it('a body that is not an object: 400 invalid_body', async () => {
    const result = await invoke({ body: '[1,2]' });
    expect(result.statusCode).toBe(400);
    expect(result.json.error.code).toBe('invalid_body');
  });

  it(`oversized body (> ${MAX_BODY_BYTES} bytes): 400 body_too_large`, async () => {
    const result = await invoke({ body: JSON.stringify({ plan: 'plus', note: 'x'.repeat(MAX_BODY_BYTES) }) });
    expect(result.statusCode).toBe(400);
    expect(result.json.error.code).toBe('body_too_large');
    expect(result.json.error.message).toContain(String(MAX_BODY_BYTES));
    expect(calls).toHaveLength(0);
  });

  it.each([
    'text/plain',
    'text/plain; charset=utf-8',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/jsonx',
    'application/json-seq',
    'application/vnd.api+json',
    null,
  ])('a body sent as %s: 415 unsupported_media_type, handler not run', async (contentType) => {
    const result = await invoke({ body: '{"plan":"plus"}', contentType });
    expect(result.statusCode).toBe(415);
    expect(result.json.error).toMatchObject({ code: 'unsupported_media_type', requestId: 'req-123' });
    expect(result.json.error.message).toContain('Content-Type: application/json');
    expect(calls).toHaveLength(0);
  });

  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON;charset=UTF-8',
    ' application/json ',
  ])('a body sent as %s is read', async (contentType) => {
    const result = await invoke({ body: '{"plan":"plus"}', contentType });
    expect(result.statusCode).toBe(201);
    expect(calls).toEqual([{ plan: 'plus' }]);
  });

  it('a request without a body needs no Content-Type', async () => {
    const bare = httpHandler({ auth: 'none' }, async () => ({ status: 204 }));
    expect((await bare(event({ contentType: null }), context)).statusCode).toBe(204);
    expect((await bare(event({ contentType: 'text/plain' }), context)).statusCode).toBe(204);
    expect((await bare(event({ body: '', contentType: 'text/plain' }), context)).statusCode).toBe(204);
  });

  it('a raw-body route (the signed webhook) keeps any Content-Type', async () => {
    const raw = httpHandler({ auth: 'none', rawBody: { maxBytes: 1024 } }, async ({ rawBody }) => ({
      status: 200,
      body: { bytes: rawBody.byteLength },
    }));
    const result = await raw(
      event({ body: 'aGVsbG8=', base64: true, contentType: 'application/octet-stream' }),
      context,
    );
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body ?? '{}')).toEqual({ bytes: 5 });
  });

  it('no session: 401 in the error shape, before the body is looked at', async () => {
    const result = await invoke({
      authorizer: { authenticated: false, rejection: 'missing_session' },
      body: 'nonsense',
    });
    expect(result.statusCode).toBe(401);
    expect(result.json).toEqual({
      error: { code: 'missing_session', message: expect.stringContaining('Bearer'), requestId: 'req-123' },
    });
  });

  it('a member is refused an administrator action with 403 admin_required', async () => {
    const result = await invoke({
      authorizer: { ...administrator, role: 'member' },
      body: '{"plan":"plus"}',
    });
    expect(result.statusCode).toBe(403);
    expect(result.json.error.code).toBe('admin_required');
    expect(calls).toHaveLength(0);
  });

  it('an unexpected failure is a 500 in the error shape without internals', async () => {
    const failing = httpHandler({ auth: 'none' }, async () => {
      throw new Error('secret internal detail');
    });
    const result = await failing(event(), context);
    expect(result.statusCode).toBe(500);
    expect(result.body).not.toContain('secret internal detail');
    expect(JSON.parse(result.body ?? '{}').error).toMatchObject({
      code: 'internal_error',
      requestId: 'req-123',
    });
  });

  it('a table fault a retry clears answers 503 temporarily_busy with Retry-After, logged as itself, not as a defect', async () => {
    const fault = (name: string, reasons?: { Code: string }[]) =>
      httpHandler({ auth: 'none' }, async () => {
        throw Object.assign(new Error('Transaction cancelled (DynamoDB internals)'), {
          name,
          ...(reasons ? { CancellationReasons: reasons } : {}),
        });
      });
    const warn = vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
    const error = vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    try {
      const conflict = await fault('TransactionCanceledException', [
        { Code: 'None' },
        { Code: 'TransactionConflict' },
      ])(event(), context);
      expect(conflict.statusCode).toBe(503);
      expect(conflict.headers?.['retry-after']).toBe('1');
      expect(conflict.body).not.toContain('DynamoDB');
      expect(JSON.parse(conflict.body ?? '{}')).toMatchObject({
        error: {
          code: 'temporarily_busy',
          message: expect.stringContaining('not saved'),
          requestId: 'req-123',
        },
        retryAfterSeconds: 1,
      });
      const throttled = await fault('ProvisionedThroughputExceededException')(event(), context);
      expect(throttled.statusCode).toBe(503);
      expect(throttled.headers?.['retry-after']).toBe('2');
      expect(warn.mock.calls.map((call) => call[0])).toEqual([
        'retryable table fault: answered 503 temporarily_busy',
        'retryable table fault: answered 503 temporarily_busy',
      ]);
      expect(error).not.toHaveBeenCalled();
      // A failed condition is not a fault to retry: still a 500 and a defect's line.
      const condition = await fault('TransactionCanceledException', [{ Code: 'ConditionalCheckFailed' }])(
        event(),
        context,
      );
      expect(condition.statusCode).toBe(500);
      expect(error.mock.calls.map((call) => call[0])).toEqual(['unhandled error']);
    } finally {
      warn.mockRestore();
      error.mockRestore();
    }
  });

  it('a refusal that says when to retry (retryAfterSeconds) also sends Retry-After; others send none', async () => {
    const busy = httpHandler({ auth: 'none' }, async () => {
      throw new Refusal('unavailable', 'subscription_busy', 'Try again.', {
        extra: { retryAfterSeconds: 2.2 },
      });
    });
    const result = await busy(event(), context);
    expect(result.statusCode).toBe(503);
    expect(result.headers?.['retry-after']).toBe('3');
    expect(JSON.parse(result.body ?? '{}')).toMatchObject({
      error: { code: 'subscription_busy' },
      retryAfterSeconds: 2.2,
    });
    const refused = httpHandler({ auth: 'none' }, async () => {
      throw new Refusal('conflict', 'stack_cap_reached', 'No more.', { extra: { stackCap: 5 } });
    });
    expect((await refused(event(), context)).headers).not.toHaveProperty('retry-after');
  });

  it('a route without a body schema accepts no fields', async () => {
    const bare = httpHandler({ auth: 'none' }, async () => ({ status: 204 }));
    expect((await bare(event(), context)).statusCode).toBe(204);
    expect((await bare(event({ body: '{}' }), context)).statusCode).toBe(204);
    const extra = await bare(event({ body: '{"x":1}' }), context);
    expect(JSON.parse(extra.body ?? '{}').error).toMatchObject({ code: 'unknown_field', field: 'x' });
  });

  it('each request logs its own duration, even when requests overlap in one process', async () => {
    const lines: { durationMs: number; requestId: string }[] = [];
    const spy = vi.spyOn(logger, 'info').mockImplementation((...args) => {
      lines.push(args[1] as { durationMs: number; requestId: string });
    });
    const waits = new Map([['slow', 80]]);
    const sleepy = httpHandler({ auth: 'none' }, async ({ requestId }) => {
      await new Promise((resolve) => setTimeout(resolve, waits.get(requestId) ?? 0));
      return { status: 204 };
    });
    const withId = (id: string) => {
      const base = event();
      return { ...base, requestContext: { ...base.requestContext, requestId: id } };
    };
    // The clock is the test's: the durations are exact, however busy the machine.
    vi.useFakeTimers({ toFake: ['setTimeout', 'performance'] });
    try {
      const slow = sleepy(withId('slow'), context);
      await vi.advanceTimersByTimeAsync(40);
      const fast = sleepy(withId('fast'), context);
      await vi.advanceTimersByTimeAsync(40);
      await Promise.all([slow, fast]);
    } finally {
      vi.useRealTimers();
      spy.mockRestore();
    }
    const durationOf = (id: string) => lines.find((line) => line.requestId === id)?.durationMs ?? -1;
    expect(durationOf('slow')).toBe(80);
    expect(durationOf('fast')).toBe(0);
  });
});
