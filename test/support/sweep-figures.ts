import type { SweepFigures } from '#ports/metrics.ts';

/** The figures of a sweep that found nothing to do (every count zero), with what a test sets. */
export const idleSweep = (over: Partial<SweepFigures> = {}): SweepFigures => ({
  intake: { applied: 0, duplicates: 0, unmatched: 0, failed: 0 },
  reconciled: 0,
  transitions: [],
  conflicts: 0,
  failed: 0,
  waitlistNotified: 0,
  homeRegionPlaceablePlans: 0,
  emailsSent: 0,
  emailsFailed: 0,
  emailsParked: 0,
  durationMs: 0,
  ...over,
});
