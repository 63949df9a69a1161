import { describe, expect, it } from 'vitest';
import { RETRY_AFTER_SECONDS, tryAgain } from '#core/refusals/common.ts';
import { tableFaultOf } from '#store/client.ts';

/** The store's one reading of a DynamoDB error as a fault a retry clears, and the words it gets. */

const named = (name: string, reasons?: { Code: string }[]) =>
  Object.assign(new Error(name), { name, ...(reasons ? { CancellationReasons: reasons } : {}) });

describe('tableFaultOf', () => {
  it('reads every throttle the SDK names as a throttle', () => {
    for (const name of [
      'ProvisionedThroughputExceededException',
      'ThrottlingException',
      'RequestLimitExceeded',
    ])
      expect(tableFaultOf(named(name)), name).toBe('table_throttled');
    expect(tableFaultOf(named('TransactionCanceledException', [{ Code: 'ThrottlingError' }]))).toBe(
      'table_throttled',
    );
  });

  it('reads a transaction cancelled for another writer as a conflict', () => {
    expect(
      tableFaultOf(
        named('TransactionCanceledException', [{ Code: 'None' }, { Code: 'TransactionConflict' }]),
      ),
    ).toBe('table_transaction_conflict');
  });

  it('a failed condition is an answer (ours to refuse), never a fault to retry; nor is anything else', () => {
    expect(tableFaultOf(named('TransactionCanceledException', [{ Code: 'ConditionalCheckFailed' }]))).toBe(
      undefined,
    );
    expect(
      tableFaultOf(
        named('TransactionCanceledException', [
          { Code: 'TransactionConflict' },
          { Code: 'ConditionalCheckFailed' },
        ]),
      ),
    ).toBe(undefined);
    expect(tableFaultOf(named('ConditionalCheckFailedException'))).toBe(undefined);
    expect(tableFaultOf(named('ValidationException'))).toBe(undefined);
    expect(tableFaultOf('not an error')).toBe(undefined);
  });
});

describe('tryAgain', () => {
  it('is a 503 temporarily_busy in our words, with the wait of its fault', () => {
    for (const fault of ['table_transaction_conflict', 'table_throttled'] as const) {
      const refusal = tryAgain(fault);
      expect(refusal).toMatchObject({ kind: 'unavailable', code: 'temporarily_busy' });
      expect(refusal.extra).toEqual({ retryAfterSeconds: RETRY_AFTER_SECONDS[fault] });
      expect(refusal.message).toContain('was not saved');
      expect(refusal.message).not.toMatch(/dynamo|transaction|exception/i);
    }
    expect(tryAgain('table_throttled', { retry: 'Start again at /v1/auth/sign-in.' }).message).toMatch(
      /Start again at \/v1\/auth\/sign-in\.$/,
    );
  });
});
