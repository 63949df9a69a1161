import { describe, expect, it } from 'vitest';
import { Refusal, splitApiHint } from '#core/refusal.ts';
import { errorBody } from '#http/errors.ts';

describe('a refusal’s words for a person, its API calls for developers', () => {
  it('moves an API call named in parentheses out of the message into apiHint', () => {
    expect(
      splitApiHint(
        "This Stack watches 3 Projects, its Plan's cap: remove one with its Remove button, or change the Stack to a larger Plan (DELETE /v1/stacks/s1/projects/{projectId}).",
      ),
    ).toEqual({
      message:
        "This Stack watches 3 Projects, its Plan's cap: remove one with its Remove button, or change the Stack to a larger Plan.",
      apiHint: 'DELETE /v1/stacks/s1/projects/{projectId}',
    });
  });

  it('keeps every call named, in order, and leaves other parentheses and plain messages alone', () => {
    expect(
      splitApiHint('Lock in your slug first (POST /v1/tenant/slug), then pay (POST /v1/billing/checkout).'),
    ).toEqual({
      message: 'Lock in your slug first, then pay.',
      apiHint: 'POST /v1/tenant/slug; POST /v1/billing/checkout',
    });
    expect(splitApiHint('Wait a minute (the sweep runs every 60 s).')).toEqual({
      message: 'Wait a minute (the sweep runs every 60 s).',
      apiHint: undefined,
    });
  });

  it('the error body carries apiHint beside the message, only when there is one', () => {
    const hinted = errorBody(
      new Refusal('conflict', 'no_customer', 'Complete a checkout first (POST /v1/billing/checkout).'),
      'r1',
    );
    expect(hinted.error).toEqual({
      code: 'no_customer',
      message: 'Complete a checkout first.',
      apiHint: 'POST /v1/billing/checkout',
      requestId: 'r1',
    });
    expect(errorBody(new Refusal('invalid', 'invalid_field', 'Say it.'), 'r2').error).toEqual({
      code: 'invalid_field',
      message: 'Say it.',
      requestId: 'r2',
    });
  });
});
