import type { DesiredState } from './stacks.ts';

/**
 * The Dispatcher contract's pure rules (docs/dispatcher.md): credentials, when to poll next, and
 * what observed state a Dispatcher may report.
 */

/** A rotated-out Dispatcher credential keeps working this long, so a Dispatcher can pick up the new one. */
export const CREDENTIAL_OVERLAP_SECONDS = 60 * 60;

/** Prefix of a Dispatcher credential (tells it apart from a session token at a glance). */
export const DISPATCHER_CREDENTIAL_PREFIX = 'scd_';

/** A Dispatcher credential: the prefix and 43 base64url characters (256 random bits). */
export const isDispatcherCredential = (token: string): boolean =>
  token.startsWith(DISPATCHER_CREDENTIAL_PREFIX) &&
  /^[A-Za-z0-9_-]{43}$/.test(token.slice(DISPATCHER_CREDENTIAL_PREFIX.length));

/**
 * When a Dispatcher polls next (issue 23). Soon while an operation runs on the Stack (the desired
 * version is not applied yet); otherwise rarely, and jittered per Stack so that a fleet started at
 * once spreads over the interval instead of polling in step. The jitter is a hash of the Stack's id
 * and the version: the same Stack at the same version is always told the same interval.
 */
export const POLL_SOON_SECONDS = 10;
/** The idle interval's middle, and how far the jitter moves it either way (a share of it). */
export const POLL_IDLE_SECONDS = 900;
export const POLL_IDLE_JITTER = 0.2;
export const POLL_IDLE_MIN_SECONDS = Math.round(POLL_IDLE_SECONDS * (1 - POLL_IDLE_JITTER));
export const POLL_IDLE_MAX_SECONDS = Math.round(POLL_IDLE_SECONDS * (1 + POLL_IDLE_JITTER));

/** A number in [0, 1) from a text (FNV-1a): the same text, the same number. */
const unitHash = (text: string): number => {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash / 0x1_0000_0000;
};

export const pollAfterSeconds = (
  desiredVersion: number,
  appliedVersion: number | undefined,
  stackId = '',
): number =>
  appliedVersion === desiredVersion
    ? POLL_IDLE_MIN_SECONDS +
      Math.floor(
        unitHash(`${stackId}:${desiredVersion}`) * (POLL_IDLE_MAX_SECONDS - POLL_IDLE_MIN_SECONDS + 1),
      )
    : POLL_SOON_SECONDS;

/**
 * The observed state is sent when it changes, and at least every HEARTBEAT_SECONDS when it does
 * not (the heartbeat). A Stack whose last report is older than STALE_AFTER_SECONDS has missed two
 * heartbeats (and the longest idle poll on top): its Dispatcher is taken for silent, after about
 * 4 h 18 min. Two hours, not one: each heartbeat is a request, a function run and a write for
 * every Stack, about a seventh of the fleet's bill at 100,000 tenants (issue 23), and a silent
 * Dispatcher runs no operation anyway (a Plan Change waits on its reports, not on this).
 */
export const HEARTBEAT_SECONDS = 7200;
export const STALE_AFTER_SECONDS = 2 * HEARTBEAT_SECONDS + POLL_IDLE_MAX_SECONDS;

/** Has the Stack's Dispatcher gone silent (reported once, but not within STALE_AFTER_SECONDS)? */
export const reportIsStale = (reportedAt: string | undefined, now: Date): boolean =>
  reportedAt !== undefined && now.getTime() - Date.parse(reportedAt) > STALE_AFTER_SECONDS * 1000;

/**
 * The per-route throttles of the Dispatcher routes, from the number of Stacks the deployment is
 * sized for (docs/scale.md). Each route's steady rate is what the whole fleet draws
 * at its cadence: every Stack at its shortest idle interval, plus BUSY_SHARE of the Stacks at the
 * short one (an operation runs); the limit doubles it, the burst doubles the limit:
 *
 *   desired-state  rate = 2 x (stacks / POLL_IDLE_MIN_SECONDS + stacks x BUSY_SHARE / POLL_SOON_SECONDS)
 *   observed-state rate = 2 x (stacks / HEARTBEAT_SECONDS    + stacks x BUSY_SHARE / POLL_SOON_SECONDS)
 *
 * (each at least the stage's default, so a small deployment is not throttled below it).
 */
export const POLLING_BUSY_SHARE = 0.01;
export const POLLING_HEADROOM = 2;
export const DEFAULT_ROUTE_RATE = 200;

export interface RouteThrottle {
  rateLimit: number;
  burstLimit: number;
}

export const dispatcherRouteThrottles = (
  stacks: number,
): { desiredState: RouteThrottle; observedState: RouteThrottle } => {
  const busy = (stacks * POLLING_BUSY_SHARE) / POLL_SOON_SECONDS;
  const throttle = (steady: number): RouteThrottle => {
    const rateLimit = Math.max(DEFAULT_ROUTE_RATE, Math.ceil(POLLING_HEADROOM * steady));
    return { rateLimit, burstLimit: 2 * rateLimit };
  };
  return {
    desiredState: throttle(stacks / POLL_IDLE_MIN_SECONDS + busy),
    observedState: throttle(stacks / HEARTBEAT_SECONDS + busy),
  };
};

/** The strong ETag of a desired-state version. */
export const desiredStateEtag = (version: number): string => `"v${version}"`;

/** Does an If-None-Match header name this version's ETag (or `*`)? */
export const matchesEtag = (ifNoneMatch: string | undefined, version: number): boolean => {
  if (!ifNoneMatch) return false;
  const etag = desiredStateEtag(version);
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
};

/** What a Stack's Dispatcher last reported. */
export interface ObservedState {
  appliedVersion: number;
  health: Health;
  activeRuns: number;
  /** A Local Stack using the host Executor (Credentials: `ambient` is allowed only there). */
  localHostExecutor: boolean;
  /** The Dispatcher confirms the Stack's teardown is done (only meaningful while decommissioning). */
  tornDown: boolean;
  /** The outcome of the last Plan Change step it carried out (drain needs no report). */
  operation?: OperationReport;
  reportedAt: string;
}

/** The health a Dispatcher reports of its Stack. */
export const HEALTH_VALUES = ['healthy', 'unhealthy', 'unknown'] as const;
export type Health = (typeof HEALTH_VALUES)[number];

/** The outcomes a Dispatcher reports of a Plan Change step. */
export const OPERATION_OUTCOMES = ['done', 'failed'] as const;

/** What a Dispatcher reports of a Plan Change step: done or failed, and why it failed. */
export interface OperationReport {
  /** The Plan Change's id (the desired state's `operation.id`). */
  id: string;
  step: 'backup' | 'switch' | 'verify';
  outcome: (typeof OPERATION_OUTCOMES)[number];
  /** Why a step failed, in words an operator can act on (never shown to tenants). */
  reason?: string;
  /** After `switch`: the replacement's public IP address differs from the old one. */
  addressChanged?: boolean;
}

/** A report may not claim a version the control plane never published. */
export const reportProblem = (
  report: { appliedVersion: number },
  desiredVersion: number,
): string | undefined =>
  report.appliedVersion > desiredVersion
    ? `appliedVersion ${report.appliedVersion} is newer than the desired state's version ${desiredVersion}`
    : undefined;

/** A Credential the Dispatcher is to validate: its name and the version of its material. */
export interface CredentialToValidate {
  name: string;
  version: number;
}

/**
 * The desired-state document as the Dispatcher reads it; `credentials` (the Credentials waiting for
 * validation) only when there are some.
 */
export const desiredStateDocument = (
  desired: DesiredState,
  version: number,
  pollAfter: number,
  credentials: CredentialToValidate[] = [],
) => ({
  version,
  ...desired,
  ...(credentials.length > 0 ? { credentials } : {}),
  poll_after_seconds: pollAfter,
  heartbeat_seconds: HEARTBEAT_SECONDS,
});
