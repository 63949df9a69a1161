import * as v from 'valibot';
import { refuse } from '../../../functions/core/refusals/index.ts';
import { httpHandler } from '../../../functions/http/handler.ts';
import {
  type ControlPlaneAnswer,
  FAULT_STEPS,
  FLEET_FAULTS,
  type FleetSimulator,
  STEP_FAULT_KINDS,
  type StepFault,
} from '../fleet.ts';
import type { AdapterRoute } from '../http-adapter.ts';
import { refuseLocal } from '../refusals.ts';
import { refuseUnknownQuery } from './query.ts';

const DISPATCHER_ID = /^dsp-\d{1,9}$/;
const LOCATION = /^[a-z0-9][a-z0-9-]{0,62}$/;
const STACK_NAME = /^[a-z0-9][a-z0-9.-]{0,252}$/;

/** `POST /_local/fleet/faults`: a standing fault (`fault`), or a fault of one Plan Change step. */
const FaultBody = v.strictObject({
  dispatcherId: v.optional(v.pipe(v.string(), v.regex(DISPATCHER_ID, 'a Dispatcher id such as dsp-1'))),
  stack: v.optional(v.pipe(v.string(), v.regex(STACK_NAME, "a Stack's name, such as s2.acme.stacks.local"))),
  fault: v.optional(v.picklist([...FLEET_FAULTS, 'none'])),
  step: v.optional(v.picklist(FAULT_STEPS)),
  kind: v.optional(v.picklist(STEP_FAULT_KINDS)),
  polls: v.optional(
    v.pipe(
      v.number(),
      v.integer('a whole number of polls'),
      v.minValue(1, 'a whole number of polls, 1 or more'),
      v.maxValue(1000, 'at most 1000 polls'),
    ),
  ),
  reason: v.optional(
    v.pipe(v.string(), v.minLength(1, 'a reason in words'), v.maxLength(500, 'at most 500 characters')),
  ),
  sticky: v.optional(v.boolean()),
});

const THREAD_ID = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9_-]{1,64}$/, 'a thread id: 1 to 64 letters, digits, "_" and "-"'),
);
const MODEL = v.pipe(v.string(), v.minLength(1, 'a model name'), v.maxLength(100, 'at most 100 characters'));

/** `POST /_local/fleet/dispatchers/{dispatcherId}/threads`: what the Dispatcher sends for a new Thread. */
const ThreadBody = v.strictObject({
  threadId: THREAD_ID,
  projectId: v.pipe(v.string(), v.minLength(1, 'a Project id (prj_…)'), v.maxLength(200)),
  activity: v.picklist(['intake', 'dispatch']),
  model: v.optional(MODEL),
  effort: v.optional(v.picklist(['low', 'medium', 'high'])),
});

/** `POST /_local/fleet/dispatchers/{dispatcherId}/guide-sessions`. */
const GuideSessionBody = v.strictObject({
  threadId: THREAD_ID,
  model: v.optional(MODEL),
  effort: v.optional(v.picklist(['low', 'medium', 'high'])),
});

/** `POST /_local/fleet/dispatchers/{dispatcherId}/validation-answers`: what it concludes of a Credential. */
const ValidationAnswerBody = v.strictObject({
  name: v.pipe(
    v.string(),
    v.regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'a Credential name (lowercase letters, digits, hyphens)'),
  ),
  outcome: v.picklist(['valid', 'invalid']),
  reason: v.optional(
    v.pipe(v.string(), v.minLength(1, 'a reason in words'), v.maxLength(500, 'at most 500 characters')),
  ),
});

/** `POST /_local/fleet/dispatchers/{dispatcherId}/data`: seeds the Stack's journal and Threads. */
const StackDataBody = v.strictObject({
  events: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100_000))),
  threads: v.optional(
    v.pipe(
      v.array(
        v.strictObject({
          threadId: THREAD_ID,
          projectId: v.pipe(v.string(), v.minLength(1, 'a Project id (prj_…)'), v.maxLength(200)),
          issue: v.pipe(v.string(), v.minLength(1, 'an issue such as acme/app#12'), v.maxLength(200)),
          shipped: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(50)),
          unshipped: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(50)),
        }),
      ),
      v.maxLength(200, 'at most 200 Threads at a time'),
    ),
  ),
});

/** Exactly one of `dispatcherId` and `stack` names the Dispatcher. */
const faultTarget = (named: {
  dispatcherId?: string | undefined;
  stack?: string | undefined;
}): { dispatcherId: string } | { stack: string } => {
  if (named.dispatcherId !== undefined && named.stack === undefined)
    return { dispatcherId: named.dispatcherId };
  if (named.stack !== undefined && named.dispatcherId === undefined) return { stack: named.stack };
  throw refuse(
    'invalid_body',
    {
      what: `Name the Dispatcher with exactly one of "dispatcherId" (such as dsp-1; GET /_local/fleet lists them) and "stack" (the Stack's name, such as s2.acme.stacks.local)${named.dispatcherId !== undefined ? ': remove one of them' : ''}.`,
    },
    { field: named.dispatcherId !== undefined ? 'stack' : 'dispatcherId' },
  );
};

/** The fleet simulator's routes: start a simulated Dispatcher, poll, start and finish runs, inject faults. */
export const fleetRoutes = (fleet: FleetSimulator): AdapterRoute[] => {
  const dispatcherOf = (id: string | undefined) => {
    const dispatcher = id && DISPATCHER_ID.test(id) ? fleet.get(id) : undefined;
    if (!dispatcher) throw refuseLocal('dispatcher_not_found', { id: id ?? '' });
    return dispatcher;
  };
  const count = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(1000));
  /** The control plane's answer to a Dispatcher's request, relayed with its own status. */
  const relayed = (answer: ControlPlaneAnswer | undefined, id: string): ControlPlaneAnswer => {
    if (!answer) throw refuseLocal('dispatcher_not_found', { id });
    return answer;
  };
  /** The Dispatcher a faults request names: by its id, or by its Stack's name. */
  const dispatcherFor = (target: { dispatcherId: string } | { stack: string }) => {
    if ('dispatcherId' in target) return dispatcherOf(target.dispatcherId);
    const dispatcher = fleet.find(target.stack);
    if (!dispatcher || dispatcher.stackName !== target.stack)
      throw refuseLocal('dispatcher_not_found', { stack: target.stack }, { field: 'stack' });
    return dispatcher;
  };
  return [
    {
      method: 'GET',
      path: '/_local/fleet',
      auth: 'none',
      handler: httpHandler({ auth: 'none' }, async () => ({
        status: 200,
        body: { dispatchers: fleet.list() },
      })),
    },
    {
      method: 'POST',
      path: '/_local/fleet/dispatchers',
      auth: 'none',
      handler: httpHandler(
        {
          auth: 'none',
          body: v.strictObject({
            credential: v.pipe(
              v.string(),
              v.regex(/^scd_[A-Za-z0-9_-]{43}$/, 'a Dispatcher credential (scd_…)'),
            ),
            localHostExecutor: v.optional(v.boolean(), false),
            location: v.optional(v.pipe(v.string(), v.regex(LOCATION, 'a location such as eu-2a'))),
          }),
        },
        async ({ body }) => {
          try {
            return {
              status: 201,
              body: await fleet.start(body.credential, {
                localHostExecutor: body.localHostExecutor,
                ...(body.location ? { location: body.location } : {}),
              }),
            };
          } catch (error) {
            throw refuseLocal('dispatcher_not_started', { why: (error as Error).message });
          }
        },
      ),
    },
    {
      method: 'POST',
      path: '/_local/fleet/tick',
      auth: 'none',
      handler: httpHandler(
        {
          auth: 'none',
          // Without a body every Dispatcher polls; `dispatcherIds` polls only those.
          body: v.strictObject({
            dispatcherIds: v.optional(
              v.pipe(v.array(v.string('a Dispatcher id such as dsp-1')), v.maxLength(100)),
            ),
          }),
        },
        async ({ body }) => {
          for (const id of body.dispatcherIds ?? []) dispatcherOf(id);
          return { status: 200, body: { dispatchers: await fleet.tick(body.dispatcherIds) } };
        },
      ),
    },
    {
      method: 'POST',
      path: '/_local/fleet/dispatchers/{dispatcherId}/runs',
      auth: 'none',
      handler: httpHandler(
        { auth: 'none', body: v.strictObject({ start: v.optional(count, 0), finish: v.optional(count, 0) }) },
        async ({ body, pathParameters }) => {
          const dispatcher = dispatcherOf(pathParameters.dispatcherId);
          const finished = dispatcher.finishRuns(body.finish);
          const { started, refused } = dispatcher.startRuns(body.start);
          return { status: 200, body: { started, refused, finished, activeRuns: dispatcher.activeRuns } };
        },
      ),
    },
    {
      method: 'POST',
      path: '/_local/fleet/dispatchers/{dispatcherId}/validation-answers',
      auth: 'none',
      handler: httpHandler({ auth: 'none', body: ValidationAnswerBody }, async ({ body, pathParameters }) => {
        if (body.outcome === 'valid' && body.reason !== undefined)
          throw refuse(
            'invalid_field',
            { what: 'Field "reason" is for an "invalid" answer only: remove it.' },
            { field: 'reason' },
          );
        const dispatcher = dispatcherOf(pathParameters.dispatcherId);
        dispatcher.setValidationAnswer(body.name, {
          outcome: body.outcome,
          ...(body.reason !== undefined ? { reason: body.reason } : {}),
        });
        return { status: 200, body: dispatcher.status() };
      }),
    },
    {
      method: 'POST',
      path: '/_local/fleet/dispatchers/{dispatcherId}/data',
      auth: 'none',
      handler: httpHandler({ auth: 'none', body: StackDataBody }, async ({ body, pathParameters }) => {
        const dispatcher = dispatcherOf(pathParameters.dispatcherId);
        const { events, threads } = body;
        return {
          status: 200,
          body: await dispatcher.seed({
            ...(events !== undefined ? { events } : {}),
            ...(threads !== undefined ? { threads } : {}),
          }),
        };
      }),
    },
    {
      method: 'POST',
      path: '/_local/fleet/dispatchers/{dispatcherId}/threads',
      auth: 'none',
      handler: httpHandler({ auth: 'none', body: ThreadBody }, async ({ body, pathParameters }) => {
        const dispatcher = dispatcherOf(pathParameters.dispatcherId);
        // The control plane's answer as the Dispatcher got it, refusals included.
        return relayed(
          await fleet.createThread(dispatcher.id, {
            threadId: body.threadId,
            projectId: body.projectId,
            activity: body.activity,
            ...(body.model !== undefined ? { model: body.model } : {}),
            ...(body.effort !== undefined ? { effort: body.effort } : {}),
          }),
          dispatcher.id,
        );
      }),
    },
    {
      method: 'POST',
      path: '/_local/fleet/dispatchers/{dispatcherId}/guide-sessions',
      auth: 'none',
      handler: httpHandler({ auth: 'none', body: GuideSessionBody }, async ({ body, pathParameters }) => {
        const dispatcher = dispatcherOf(pathParameters.dispatcherId);
        return relayed(
          await fleet.startGuideSession(dispatcher.id, {
            threadId: body.threadId,
            ...(body.model !== undefined ? { model: body.model } : {}),
            ...(body.effort !== undefined ? { effort: body.effort } : {}),
          }),
          dispatcher.id,
        );
      }),
    },
    {
      method: 'POST',
      path: '/_local/fleet/faults',
      auth: 'none',
      handler: httpHandler({ auth: 'none', body: FaultBody }, async ({ body }) => {
        // The whole body is checked (400) before the Dispatcher is looked up (404).
        const target = faultTarget(body);
        const { fault } = body;
        if (fault !== undefined) {
          const extra = (['step', 'kind', 'polls', 'reason', 'sticky'] as const).find(
            (f) => body[f] !== undefined,
          );
          if (extra)
            throw refuse(
              'invalid_body',
              {
                what: `Send either "fault" (a standing fault of the whole Dispatcher) or "step" and "kind" (a fault of one Plan Change step), not both: remove "${extra}".`,
              },
              { field: extra },
            );
          const dispatcher = dispatcherFor(target);
          dispatcher.fault = fault === 'none' ? null : fault;
          return { status: 200, body: dispatcher.status() };
        }
        const { step, kind } = body;
        if (step === undefined || kind === undefined)
          throw refuse(
            'invalid_field',
            {
              what: `Field "${step === undefined ? 'step' : 'kind'}" is required: a step fault names its "step" (${FAULT_STEPS.join(', ')}) and its "kind" (${STEP_FAULT_KINDS.join(', ')}); or send "fault" (${[...FLEET_FAULTS, 'none'].join(', ')}).`,
            },
            { field: step === undefined ? 'step' : 'kind' },
          );
        if (kind === 'fail' && body.polls !== undefined)
          throw refuse(
            'invalid_field',
            { what: 'Field "polls" is for a "delay" fault only: remove it.' },
            { field: 'polls' },
          );
        if (kind === 'delay' && body.reason !== undefined)
          throw refuse(
            'invalid_field',
            { what: 'Field "reason" is for a "fail" fault only: remove it.' },
            { field: 'reason' },
          );
        const stepFault: StepFault = {
          step,
          kind,
          ...(kind === 'delay' ? { polls: body.polls ?? 1 } : {}),
          ...(body.reason !== undefined ? { reason: body.reason } : {}),
          ...(body.sticky ? { sticky: true } : {}),
        };
        return { status: 200, body: fleet.injectFault(dispatcherFor(target).id, stepFault) };
      }),
    },
    {
      method: 'DELETE',
      path: '/_local/fleet/faults',
      auth: 'none',
      handler: httpHandler({ auth: 'none' }, async ({ query }) => {
        refuseUnknownQuery(query, ['dispatcherId', 'stack']);
        const dispatcher = dispatcherFor(faultTarget(query));
        return { status: 200, body: fleet.clearFaults(dispatcher.id) };
      }),
    },
  ];
};
