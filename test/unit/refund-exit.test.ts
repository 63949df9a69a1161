import { describe, expect, it } from 'vitest';
import { Refusal } from '#core/refusal.ts';
import { REFUND_EXIT, refundFailure } from '../../lib/ops/refund-exit.ts';

/** `npm run ops -- refund` exits 1 for "no" and 75 for "try again", so a script can tell them apart. */

describe('the exit code of a refund that did not happen', () => {
  it('"try again": the processor did not answer, the table was busy, an outcome still unknown', () => {
    const later = [
      new Refusal('upstream_failed', 'processor_unavailable', 'The payment processor did not answer.'),
      new Refusal('unavailable', 'temporarily_busy', 'Busy.'),
      new Refusal('unavailable', 'processor_outcome_unknown', 'Not known yet.'),
      new Refusal('unavailable', 'rate_limited', 'Too many.'),
      // A table fault that reached the command unanswered.
      Object.assign(new Error('cancelled'), {
        name: 'TransactionCanceledException',
        CancellationReasons: [{ Code: 'TransactionConflict' }],
      }),
      Object.assign(new Error('throttled'), { name: 'ThrottlingException' }),
    ];
    for (const error of later) {
      const failed = refundFailure(error);
      expect(failed?.exitCode, String(error)).toBe(REFUND_EXIT.tryAgain);
      expect(failed?.line).toMatch(/^Not done yet, try again \(/);
    }
    expect(REFUND_EXIT.tryAgain).toBe(75);
  });

  it('"no": the tenant does not qualify, the address is not its own, the processor refused', () => {
    for (const refusal of [
      new Refusal('conflict', 'money_back_window_closed', 'Too late.'),
      new Refusal('not_found', 'tenant_not_found', 'No tenant.'),
      new Refusal('forbidden', 'email_mismatch', 'Not theirs.'),
      new Refusal('upstream_failed', 'processor_error', 'The processor refused the request.'),
    ]) {
      const failed = refundFailure(refusal);
      expect(failed, refusal.code).toEqual({
        exitCode: REFUND_EXIT.refused,
        line: `Refused (${refusal.code}): ${refusal.message}`,
      });
    }
    expect(REFUND_EXIT.refused).toBe(1);
  });

  it('a defect is thrown on (no exit code of ours)', () => {
    expect(refundFailure(new TypeError('x is undefined'))).toBeUndefined();
  });
});
