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

/** Poll soon while an operation runs on the Stack (desired not yet applied), rarely otherwise. */
export const POLL_SOON_SECONDS = 10;
export const POLL_IDLE_SECONDS = 300;

export const pollAfterSeconds = (desiredVersion: number, appliedVersion: number | undefined): number =>
  appliedVersion === desiredVersion ? POLL_IDLE_SECONDS : POLL_SOON_SECONDS;

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

export const HEALTH_VALUES = ['healthy', 'unhealthy', 'unknown'] as const;
export type Health = (typeof HEALTH_VALUES)[number];

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
});
