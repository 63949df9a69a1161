import { Refusal } from '../../functions/core/refusal.ts';
import { tryAgain } from '../../functions/core/refusals/common.ts';
import { tableFaultOf } from '../../functions/store/client.ts';

/**
 * How `npm run ops -- refund` ends when the refund did not happen, so that a script can tell a
 * "no" from a "try again": 1 when the answer is no (the tenant does not qualify, the address is
 * not its own: running it again changes nothing); 75 (EX_TEMPFAIL of sysexits.h) when it is "try
 * again" (the processor did not answer, or the table was busy: running the same command again
 * continues the same grant). 0 is a grant, 2 a command line to fix.
 */
export const REFUND_EXIT = { refused: 1, tryAgain: 75 } as const;

/** Refusals whose answer is "later", not "no". */
const TRY_AGAIN_CODES = new Set(['processor_unavailable', 'temporarily_busy', 'processor_outcome_unknown']);

/**
 * The exit code and the line to print for a refund that failed with `error`; undefined for an
 * error that is neither a refusal nor a fault a retry clears (a defect: let it be thrown).
 */
export const refundFailure = (error: unknown): { exitCode: number; line: string } | undefined => {
  const fault = tableFaultOf(error);
  const refusal = error instanceof Refusal ? error : fault ? tryAgain(fault) : undefined;
  if (!refusal) return undefined;
  const later = TRY_AGAIN_CODES.has(refusal.code) || refusal.kind === 'unavailable';
  return later
    ? {
        exitCode: REFUND_EXIT.tryAgain,
        line: `Not done yet, try again (${refusal.code}): ${refusal.message} Running the same command again continues the same grant.`,
      }
    : { exitCode: REFUND_EXIT.refused, line: `Refused (${refusal.code}): ${refusal.message}` };
};
