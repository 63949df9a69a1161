import { describe, expect, it } from 'vitest';
import { everyFaultKind } from '../support/faults.ts';

/**
 * The short chaos run (issue 25; `npm run test:chaos` is the long one): a few tenants through the
 * whole money path while every fault kind of the board is armed on a share of the calls, then the
 * faults stop, the sweep settles, and no invariant is violated. Its own control plane in this
 * process (the board is reached directly): no `npm start` and no shared DynamoDB Local, so it is a
 * layer of its own (vitest's `chaos` project), beside the long run (test/chaos/run.ts).
 */

describe('the money path under faults (short chaos run)', () => {
  it('a few tenants, every fault kind armed: no invariant violated once settled', {
    timeout: 240_000,
  }, async () => {
    process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
    const { runChaos } = await import('../support/chaos.ts');
    // Short waits for the sweep's work (a give-up is listed, not a violation): CI's 2 minutes.
    const result = await runChaos({ seed: 25, tenants: 4, share: 0.1, patienceMs: 15_000 });
    console.log(`faults per kind: ${JSON.stringify(result.firedByKind)}`);
    if (result.abandoned.length) console.log(`the driver gave up on: ${result.abandoned.join('; ')}`);
    if (result.diagnosis.length) console.log(`still owed: ${result.diagnosis.join('; ')}`);
    console.log(result.line);
    expect(result.violations).toEqual([]);
    expect(result.faults).toBeGreaterThan(0);
    expect(everyFaultKind().length).toBe(14);
    expect(result.line).toMatch(
      /^chaos: \d+ faults over \d+ kinds, 0 invariant violations, settled in \d+\.\d s$/,
    );
  });
});
