import {
  desiredStateDocument,
  desiredStateEtag,
  type Health,
  matchesEtag,
  pollAfterSeconds,
  reportProblem,
} from '#core/dispatcher.ts';
import { Refusal } from '#core/refusal.ts';
import { renderDesiredState } from '#core/stacks.ts';
import { recordObservedState } from '#store/stacks.ts';
import { requireStack } from './views.ts';

/**
 * THE desired-state read of the Dispatcher contract: the Stack's desired state with its version as
 * the ETag; the same version again is a 304. The answer says when to poll next.
 */
export const readDesiredState = async (params: {
  tenantId: string;
  stackId: string;
  ifNoneMatch?: string;
}) => {
  const stack = await requireStack(params.tenantId, params.stackId);
  const version = stack.desiredVersion;
  const pollAfter = pollAfterSeconds(version, stack.observed?.appliedVersion);
  const headers = { etag: desiredStateEtag(version), 'x-poll-after-seconds': String(pollAfter) };
  if (matchesEtag(params.ifNoneMatch, version)) return { notModified: true as const, headers };
  return {
    notModified: false as const,
    headers,
    body: desiredStateDocument(renderDesiredState(stack), version, pollAfter),
  };
};

/** THE observed-state report: what the Dispatcher applied, its health and active runs. */
export const reportObservedState = async (params: {
  tenantId: string;
  stackId: string;
  report: {
    appliedVersion: number;
    health: Health;
    activeRuns: number;
    localHostExecutor: boolean;
    tornDown: boolean;
  };
  now: Date;
}) => {
  const stack = await requireStack(params.tenantId, params.stackId);
  const problem = reportProblem(params.report, stack.desiredVersion);
  if (problem) throw new Refusal(409, 'unknown_version', `${problem}: report the version you applied.`);
  const observed = { ...params.report, reportedAt: params.now.toISOString() };
  if (!(await recordObservedState(params.tenantId, params.stackId, observed)))
    throw new Refusal(409, 'unknown_version', 'The Stack changed meanwhile: read the desired state again.');
  return {
    desiredStateVersion: stack.desiredVersion,
    poll_after_seconds: pollAfterSeconds(stack.desiredVersion, observed.appliedVersion),
  };
};
