/**
 * Which request lines are written: every error, every refusal of a money operation and every
 * state change is kept; the routine rest (reads, the Dispatchers' heartbeats, refusals of reads)
 * is sampled at `sampleRate` (0: none, 1: all). In the cloud the rate is `REQUEST_LOG_SAMPLE_RATE`
 * (default 0.05, docs/runbook.md); `npm start` writes no routine line unless `--verbose`. Pure.
 */

/** Why a request line is written. */
export type RequestLineKept = 'error' | 'money_refusal' | 'state_change' | 'sampled';

/** Operations that buy, change what is billed, or give money back (`METHOD /path` as routed). */
const MONEY_OPERATIONS = [
  /^POST \/v1\/billing\/(checkout|portal)$/,
  /^POST \/v1\/stacks$/,
  /^POST \/v1\/plan-changes(\/|$)/,
  /^POST \/v1\/stacks\/\{[^}]+\}\/plan-change/,
  /^POST \/v1\/tenant\/close$/,
  /^POST \/ops\//,
];

/** Writes that are routine: a Dispatcher's observed state (its heartbeat). */
const ROUTINE_WRITES = [/^PUT \/v1\/dispatcher\/observed-state$/];

export const isMoneyOperation = (routeKey: string): boolean =>
  MONEY_OPERATIONS.some((pattern) => pattern.test(routeKey));

export const requestLineKept = (request: {
  /** `METHOD /path` as routed (`POST /v1/stacks`). */
  routeKey: string;
  method: string;
  status: number;
  sampleRate: number;
  /** A draw in [0, 1) (Math.random in the handler; fixed in tests). */
  draw: number;
}): RequestLineKept | null => {
  if (request.status >= 500) return 'error';
  if (request.status >= 400 && isMoneyOperation(request.routeKey)) return 'money_refusal';
  const write = request.method !== 'GET' && request.method !== 'HEAD' && request.method !== 'OPTIONS';
  if (write && request.status < 400 && !ROUTINE_WRITES.some((pattern) => pattern.test(request.routeKey)))
    return 'state_change';
  return request.draw < request.sampleRate ? 'sampled' : null;
};

/** A sample rate from the environment's text: a number from 0 to 1, else `fallback`. */
export const sampleRateOf = (text: string | undefined, fallback: number): number => {
  if (text === undefined || text.trim() === '') return fallback;
  const rate = Number(text);
  return Number.isFinite(rate) && rate >= 0 && rate <= 1 ? rate : fallback;
};
