import { describe, expect, it } from 'vitest';
import type { Refusal } from '#core/refusal.ts';
import { outcomeUnknown, ProcessorError, viaProcessor } from '#ports/processor/errors.ts';
import { expectRefusal } from '../support/refusals.ts';

/** What `promise` rejected with (fails the test if it resolved). */
const rejectionOf = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
};

describe('a processor failure says whether a retry may help, and that nothing was charged', () => {
  it('a ProcessorError carries its name, its kind, and whether the request was never sent (no by default)', () => {
    const sent = new ProcessorError('unavailable', 'timed out');
    expect(sent).toBeInstanceOf(Error);
    expect(sent.name).toBe('ProcessorError');
    expect(sent.message).toBe('timed out');
    expect(sent.kind).toBe('unavailable');
    expect(sent.notSent).toBe(false);
    expect(new ProcessorError('rejected', 'no', {}).notSent).toBe(false);
    const never = new ProcessorError('rejected', 'no time left', { notSent: true });
    expect(never.kind).toBe('rejected');
    expect(never.notSent).toBe(true);
  });

  it('a call that answers passes its result through', async () => {
    await expect(viaProcessor(async () => ({ url: 'https://portal.test/x' }))).resolves.toEqual({
      url: 'https://portal.test/x',
    });
  });

  it('a failure that is not the processor’s is rethrown unchanged', async () => {
    const bug = new TypeError('a bug of ours');
    expect(
      await rejectionOf(
        viaProcessor(async () => {
          throw bug;
        }),
      ),
    ).toBe(bug);
  });

  it.each([
    {
      rule: 'an unavailable processor is a 502 processor_unavailable: nothing was charged, try again',
      failure: new ProcessorError('unavailable', 'socket hang up from api.stripe.com'),
      code: 'processor_unavailable',
      message: 'The payment processor did not answer; nothing was charged. Try again in a moment.',
    },
    {
      rule: 'a processor that rejects the request is a 502 processor_error: nothing was charged, contact support',
      failure: new ProcessorError('rejected', 'No such price: price_123'),
      code: 'processor_error',
      message:
        'The payment processor refused the request; nothing was charged. Contact support if this persists.',
    },
  ])('$rule', async ({ failure, code, message }) => {
    const refusal = await rejectionOf(
      viaProcessor(async () => {
        throw failure;
      }),
    );
    expectRefusal(refusal, { status: 502, code, message, extra: {} });
    // The processor's own words (and ids) never reach the tenant.
    expect((refusal as Refusal).message).not.toContain(failure.message);
  });
});

describe('an added Stack whose charge is not known yet is a 503 that says what a retry does', () => {
  it.each([
    {
      rule: 'with an Idempotency-Key: retry with the same key, charged once',
      keyed: true,
      message:
        'The payment processor did not answer, and whether it charged the added Stack is not known yet; no Stack was created. Retry with the same Idempotency-Key: the retry creates the Stack if it was charged, and adds it (charged once) if it was not.',
    },
    {
      rule: 'without one: a charge is taken back automatically; retry with a key',
      keyed: false,
      message:
        'The payment processor did not answer, and whether it charged the added Stack is not known yet; no Stack was created. If it was charged, the charge is taken back automatically (a credit on the next invoice). Try again, with an Idempotency-Key so that a retry is safe.',
    },
  ])('$rule', ({ keyed, message }) => {
    expectRefusal(outcomeUnknown(keyed), {
      status: 503,
      code: 'processor_outcome_unknown',
      message,
      extra: { retryAfterSeconds: 30 },
    });
  });
});
