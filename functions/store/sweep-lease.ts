import * as v from 'valibot';
import { updateIf } from './client.ts';
import { entity, getOne } from './entity.ts';
import { type LeaseBusy, releaseLease, takeLease } from './lease.ts';

/** The reconciler sweep's lease: one sweep at a time in the whole deployment. */
export const sweepLease = entity({
  type: 'sweep_lease',
  key: () => ({ PK: 'SWEEP', SK: 'LEASE' }),
  schema: v.object({ holder: v.optional(v.string()), leaseUntil: v.optional(v.string()) }),
});

/** When a webhook last woke the sweep (nudges coalesce within a short window). */
export const sweepNudge = entity({
  type: 'sweep_nudge',
  key: () => ({ PK: 'SWEEP', SK: 'NUDGE' }),
  schema: v.object({ nudgedAt: v.string() }),
});

/**
 * The reconciler sweep's lease: one sweep at a time in a deployment, whatever runs it (the
 * schedule, an intake nudge, a retry). The lease primitive of lease.ts (as the subscription items'):
 * one item, taken with a conditional write when nobody holds it or its time ran out (`leaseUntil`,
 * from the Clock, compared as data), given back by its holder only. A holder that crashed holds it
 * until `leaseUntil`, which is the end of its function's time: no sweep can still be running then.
 */

/** Another sweep holds the lease until `busyUntil`. */
export type SweepLeaseBusy = LeaseBusy;

/** Takes the lease for `holder` until `until` when it is free or expired; else says until when it is busy. */
export const takeSweepLease = async (
  holder: string,
  now: Date,
  until: Date,
): Promise<{ holder: string; until: string } | SweepLeaseBusy> => {
  const taken = await takeLease(sweepLease.key(), {
    holder,
    type: sweepLease.type,
    now,
    until: until.toISOString(),
  });
  return 'busyUntil' in taken ? taken : { holder, until: until.toISOString() };
};

/** Gives the lease back: only its holder can (a holder whose time ran out finds another's, and leaves it). */
export const releaseSweepLease = (holder: string): Promise<void> => releaseLease(sweepLease.key(), holder);

/**
 * Webhooks wake the sweep at most once per window (issue 23): the first nudge of a window claims
 * it (one conditional write on one item) and invokes the sweep; the others of that window find it
 * claimed and do not. True when this nudge claimed the window.
 */
export const claimSweepNudge = (now: Date, windowMs: number): Promise<boolean> =>
  updateIf({
    Key: sweepNudge.key(),
    UpdateExpression: 'SET nudgedAt = :now, #type = :type',
    ConditionExpression: 'attribute_not_exists(nudgedAt) OR nudgedAt <= :windowStart',
    ExpressionAttributeNames: { '#type': 'type' },
    ExpressionAttributeValues: {
      ':now': now.toISOString(),
      ':type': sweepNudge.type,
      ':windowStart': new Date(now.getTime() - windowMs).toISOString(),
    },
  });

/** When a webhook last woke the sweep, if ever. */
export const lastSweepNudge = async (): Promise<Date | undefined> => {
  const nudge = await getOne(sweepNudge);
  return nudge ? new Date(nudge.nudgedAt) : undefined;
};
