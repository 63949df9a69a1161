import { budgetShape, PROCESSOR_RATE_LIMITS } from '../../../functions/ports/rate-limit.ts';

/**
 * The sweep's queue under the processor budget, for fleets the machine cannot run (issue 23).
 * Arrivals: a fleet's due work (every tenant's daily re-check, renewals' events, cancels,
 * checkouts), in processor calls, spread evenly over the day (re-checks keep the time of day of
 * the previous look; renewals fall at each subscription's own anchor), so a Poisson stream of
 * `lambda = tenants x calls per tenant-day / 86,400` calls a second. Service: the budget a busy
 * account gets (`budgetShape`: 96/s of a live key's 100), times the share of a minute a scheduled
 * sweep works (50 s of 60) when a backlog outlasts one sweep. The wait is the M/M/1 tail, which
 * overstates a budget's steady pace (M/D/1): `P(wait > t) = rho x exp(-(mu - lambda) t)`.
 */
export interface QueueProjection {
  tenants: number;
  limitPerSecond: number;
  /** Calls a second the sweep can make while working through a backlog. */
  serviceRate: number;
  arrivalRate: number;
  utilisation: number;
  /** The p99 wait in the queue (s); Infinity once the budget is outgrown. */
  waitP99: number;
  /** Sweep lag p99 (s): a nudged sweep's start (the nudge window) + the reconciliation itself + the wait. */
  lagP99: number;
  /** The longest a due re-check waits (s): the schedule's minute + the reconciliation + the p99.9 wait. */
  recheckWaitP999: number;
  /** Hours of the account's budget the day's calls take. */
  budgetHoursPerDay: number;
}

export const SWEEP_DUTY = 50 / 60;
export const NUDGE_WINDOW_S = 2;
export const SCHEDULE_S = 60;

export const projectQueue = (params: {
  tenants: number;
  callsPerTenantDay: number;
  /** A reconciliation's own time (s), p99, measured. */
  serviceP99: number;
  limitPerSecond?: number;
}): QueueProjection => {
  const limitPerSecond = params.limitPerSecond ?? PROCESSOR_RATE_LIMITS.live;
  const shape = budgetShape(limitPerSecond);
  const busy = shape.places * shape.windowsPerSecond;
  const serviceRate = busy * SWEEP_DUTY;
  const arrivalRate = (params.tenants * params.callsPerTenantDay) / 86_400;
  const utilisation = arrivalRate / serviceRate;
  const tail = (p: number) =>
    utilisation >= 1
      ? Number.POSITIVE_INFINITY
      : utilisation <= p
        ? 0
        : Math.log(utilisation / p) / (serviceRate - arrivalRate);
  const waitP99 = tail(0.01);
  return {
    tenants: params.tenants,
    limitPerSecond,
    serviceRate,
    arrivalRate,
    utilisation,
    waitP99,
    lagP99: NUDGE_WINDOW_S + params.serviceP99 + waitP99,
    recheckWaitP999: SCHEDULE_S + params.serviceP99 + tail(0.001),
    budgetHoursPerDay: (params.tenants * params.callsPerTenantDay) / busy / 3600,
  };
};
