import {
  desiredStateDocument,
  desiredStateEtag,
  HEARTBEAT_SECONDS,
  type Health,
  matchesEtag,
  type OperationReport,
  pollAfterSeconds,
  reportProblem,
} from '#core/dispatcher.ts';
import { refuse } from '#core/refusals/index.ts';
import { renderDesiredState, tornDown } from '#core/stacks.ts';
import { listCredentials } from '#store/credentials.ts';
import { recordObservedState, type StoredStack, teardownWrites } from '#store/stacks.ts';
import { getTenant, lookNoLaterThan } from '#store/tenants.ts';
import { applyStackWrites } from '#store/transact.ts';
import { requireStack } from '../lookups/index.ts';

/** The Stack's Credentials waiting for validation by its Dispatcher (archived ones never are). */
const credentialsToValidate = async (tenantId: string, stackId: string) =>
  (await listCredentials(tenantId, stackId))
    .filter((credential) => credential.validation.state === 'pending' && credential.archivedAt === undefined)
    .map((credential) => ({ name: credential.name, version: credential.materialVersion }))
    .sort((a, b) => a.name.localeCompare(b.name));

/** The Stack's running export, for its Dispatcher to build and upload (none once torn down). */
const exportToBuild = (stack: StoredStack) =>
  stack.runningExport && stack.lifecycle !== 'torn_down'
    ? { export: { id: stack.runningExport.exportId, requestedAt: stack.runningExport.requestedAt } }
    : {};

/**
 * THE desired-state read of the Dispatcher contract: the Stack's desired state with its version as
 * the ETag; the same version again is a 304. The answer says when to poll next. The 304 path (what
 * an idle fleet sends) reads the Stack item only and writes nothing.
 */
export const readDesiredState = async (params: {
  tenantId: string;
  stackId: string;
  ifNoneMatch?: string;
}) => {
  // A poll: eventually consistent (half the read units of the fleet's busiest route, issue 23).
  const stack = await requireStack(params.tenantId, params.stackId, { consistent: false });
  const version = stack.desiredVersion;
  const pollAfter = pollAfterSeconds(version, stack.observed?.appliedVersion, params.stackId);
  const headers = { etag: desiredStateEtag(version), 'x-poll-after-seconds': String(pollAfter) };
  if (matchesEtag(params.ifNoneMatch, version)) return { notModified: true as const, headers };
  return {
    notModified: false as const,
    headers,
    body: desiredStateDocument(
      { ...renderDesiredState(stack), ...exportToBuild(stack) },
      version,
      pollAfter,
      await credentialsToValidate(params.tenantId, params.stackId),
    ),
  };
};

/**
 * THE observed-state report: what the Dispatcher applied, its health and active runs. Sent when it
 * changes and at least every heartbeat; each report stores its time (`reportedAt`), on which a
 * silent Dispatcher is detected (`reportStale` in the Stack's view).
 */
export const reportObservedState = async (params: {
  tenantId: string;
  stackId: string;
  report: {
    appliedVersion: number;
    health: Health;
    activeRuns: number;
    localHostExecutor: boolean;
    tornDown: boolean;
    /** Stored as reported, whatever its id: the workflow compares it with the change it runs. */
    operation?: OperationReport | undefined;
  };
  now: Date;
}) => {
  const stack = await requireStack(params.tenantId, params.stackId);
  const problem = reportProblem(params.report, stack.desiredVersion);
  if (problem) throw refuse('unknown_version', { problem });
  // Past the cancel window (backup, switch, verify) a Plan Change finishes before the teardown: a
  // teardown confirmation now is not taken (nor stored, so no sweep takes it either); the
  // Dispatcher confirms again on a later poll, once the change has ended.
  const changeUnderWay = stack.operation !== undefined && stack.operation.step !== 'drain';
  const { operation, ...report } = params.report;
  const observed = {
    ...report,
    tornDown: report.tornDown && !changeUnderWay,
    ...(operation ? { operation } : {}),
    reportedAt: params.now.toISOString(),
  };
  if (!(await recordObservedState(params.tenantId, params.stackId, observed)))
    throw refuse('unknown_version', {});
  const teardownDue =
    stack.lifecycle === 'decommissioning' &&
    stack.teardownAt !== undefined &&
    Date.parse(stack.teardownAt) <= params.now.getTime();
  if (observed.tornDown && teardownDue) {
    // The Dispatcher confirms the teardown: the Stack is torn down and its place given back; the
    // sweep then records the tenant's close-out as complete.
    const region = stack.region ?? (await getTenant(params.tenantId))?.homeRegion ?? '';
    const done = tornDown(stack, params.now.toISOString());
    if (await applyStackWrites(teardownWrites(params.tenantId, region, [{ stored: stack, next: done }])))
      await lookNoLaterThan(params.tenantId, params.now.toISOString());
  }
  return {
    desiredStateVersion: stack.desiredVersion,
    poll_after_seconds: pollAfterSeconds(stack.desiredVersion, observed.appliedVersion, params.stackId),
    heartbeat_seconds: HEARTBEAT_SECONDS,
  };
};
