import * as v from 'valibot';
import { hashSessionToken, newSessionToken } from '../../functions/core/session-token.ts';
import { HttpError } from '../../functions/http/errors.ts';
import { httpHandler } from '../../functions/http/handler.ts';
import { sessionCookie } from '../../functions/http/session-token.ts';
import { config, PLAN_CHANGE_GATES } from '../../functions/ports/config.ts';
import { createSession } from '../../functions/store/sessions.ts';
import { addMember, type CodeHostIdentity, signInIdentity } from '../../functions/store/users.ts';
import type { AdjustableClock } from './clock.ts';
import { accountEmail, LOGIN_PATTERN } from './code-host.ts';
import {
  ArmError,
  DEPENDENCIES,
  type Dependency,
  FAULT_CATALOG,
  type FaultBoard,
  type FaultName,
} from './faults.ts';
import {
  type ControlPlaneAnswer,
  FAULT_STEPS,
  FLEET_FAULTS,
  type FleetSimulator,
  STEP_FAULT_KINDS,
  type StepFault,
} from './fleet.ts';
import type { AdapterRoute } from './http-adapter.ts';
import type { MailArchive } from './mail.ts';
import { type ProcessorEmulator, StripeApiError } from './processor/emulator.ts';
import { cardBehavior } from './processor/state.ts';
import type { LocalSweeper } from './sweeper.ts';

const MAX_ADVANCE_SECONDS = 10 * 365 * 86400;

const LoginSchema = v.pipe(
  v.string('a code-host login'),
  v.regex(LOGIN_PATTERN, 'a code-host login (letters, digits, single hyphens)'),
);

/**
 * The local sign-in's identities: the login, case-insensitively, is the account, with the address
 * the code-host stand-in reports for the same login.
 */
const localIdentity = (login: string): CodeHostIdentity => ({
  provider: 'local',
  subject: login.toLowerCase(),
  login,
  email: accountEmail(login),
});

const CardSchema = v.pipe(
  v.string('a card number such as "4242 4242 4242 4242"'),
  v.regex(/^[\d -]{12,30}$/, 'a card number of 12 to 19 digits, such as "4242 4242 4242 4242"'),
);

const SESSION_ID = /^cs_\w{1,200}$/;
const EMAIL_ADDRESS = /^[^\s@,]+@[^\s@,]+$/;

/**
 * Pays a Checkout Session without a browser: what the emulator's hosted Checkout page does when
 * its form is submitted (`payCheckout`, after the emulator's per-request tick), then waits until
 * the processor's webhooks have reached the control plane's intake. Bad input is refused before
 * the emulator is touched.
 */
const payRoute = (emulator: ProcessorEmulator): AdapterRoute => ({
  method: 'POST',
  path: '/_local/processor/checkout/{sessionId}/pay',
  auth: 'none',
  handler: httpHandler(
    { auth: 'none', body: v.strictObject({ card: CardSchema }) },
    async ({ body, pathParameters }) => {
      const sessionId = pathParameters.sessionId ?? '';
      if (!SESSION_ID.test(sessionId))
        throw new HttpError(
          400,
          'invalid_field',
          'Path parameter "sessionId" is invalid: expected a Checkout Session id (cs_...), the last part of the checkout url.',
          { field: 'sessionId' },
        );
      if (cardBehavior(body.card) === 'invalid')
        throw new HttpError(
          400,
          'invalid_field',
          'Field "card" is invalid: expected a valid card number (it fails the Luhn check); test cards: 4242 4242 4242 4242, 4000 0000 0000 0002, 4000 0000 0000 0341.',
          { field: 'card' },
        );
      let result: ReturnType<ProcessorEmulator['payCheckout']>;
      try {
        emulator.tick();
        result = emulator.payCheckout(sessionId, body.card);
      } catch (error) {
        if (!(error instanceof StripeApiError)) throw error;
        if (error.code === 'resource_missing')
          throw new HttpError(
            404,
            'checkout_session_not_found',
            `No Checkout Session "${sessionId}": use the url POST /v1/billing/checkout answered.`,
            { field: 'sessionId' },
          );
        throw new HttpError(
          409,
          'checkout_session_inactive',
          'This Checkout Session is no longer open (paid already, or expired): start a new one with POST /v1/billing/checkout.',
        );
      } finally {
        await emulator.flushWebhooks();
      }
      if (!result.ok)
        throw new HttpError(402, 'card_declined', `${result.message} Pay with another card.`, {
          field: 'card',
        });
      return { status: 200, body: { paid: true } };
    },
  ),
});

/** The sent mail, from the copy kept in the data folder (see lib/local/mail.ts). */
const mailRoute = (mail: MailArchive): AdapterRoute => ({
  method: 'GET',
  path: '/_local/mail',
  auth: 'none',
  handler: httpHandler({ auth: 'none' }, async ({ query }) => {
    const unknown = Object.keys(query).find((name) => name !== 'to');
    if (unknown)
      throw new HttpError(400, 'unknown_field', `Unknown query parameter "${unknown}": remove it.`, {
        field: unknown,
      });
    if (query.to !== undefined && !EMAIL_ADDRESS.test(query.to))
      throw new HttpError(
        400,
        'invalid_field',
        'Query parameter "to" is invalid: expected one email address, such as alice@users.code-host.test.',
        { field: 'to' },
      );
    await mail.sync();
    return { status: 200, body: { emails: mail.list(query.to) } };
  }),
});

export interface LocalRouteParts {
  /** The processor emulator: `POST /_local/processor/checkout/{sessionId}/pay`, and clock advances wait for its webhooks. */
  processor?: ProcessorEmulator | undefined;
  /** The kept copy of the sent mail: `GET /_local/mail`. */
  mail?: MailArchive | undefined;
  /** The fleet simulator (reference Dispatchers): `/_local/fleet/...`. */
  fleet?: FleetSimulator | undefined;
  /** The fault board: `/_local/faults` (faults on demand). */
  faults?: FaultBoard | undefined;
}

const FaultArmBody = v.strictObject({
  dependency: v.picklist(DEPENDENCIES, `one of ${DEPENDENCIES.join(', ')}`),
  fault: v.string('a fault of the dependency (GET /_local/faults lists them)'),
  operation: v.optional(v.string('an operation of the dependency (GET /_local/faults lists them)')),
  times: v.optional(
    v.pipe(
      v.number('a whole number of calls'),
      v.integer('a whole number of calls'),
      v.minValue(1, 'a whole number of calls, 1 or more'),
      v.maxValue(1_000_000, 'at most 1000000 calls'),
    ),
  ),
  share: v.optional(
    v.pipe(
      v.number('a share of calls, more than 0 and at most 1'),
      v.gtValue(0, 'a share of calls, more than 0 and at most 1'),
      v.maxValue(1, 'a share of calls, more than 0 and at most 1'),
    ),
  ),
});

const FaultSeedBody = v.strictObject({
  seed: v.pipe(
    v.number('a whole number from 0 to 4294967295'),
    v.integer('a whole number from 0 to 4294967295'),
    v.minValue(0, 'a whole number from 0 to 4294967295'),
    v.maxValue(0xffffffff, 'a whole number from 0 to 4294967295'),
  ),
});

/**
 * `/_local/faults`: GET shows the catalog (dependencies, operations, faults), the seed, what is
 * armed and what fired per kind; POST arms the next `times` calls or a `share` of calls of one
 * fault; PUT `{ "seed" }` restarts the board's generator on that seed (so a run's draws repeat);
 * DELETE disarms all (or `?dependency=`), keeping the counts.
 */
const faultRoutes = (board: FaultBoard): AdapterRoute[] => [
  {
    method: 'GET',
    path: '/_local/faults',
    auth: 'none',
    handler: httpHandler({ auth: 'none' }, async () => ({
      status: 200,
      body: { catalog: FAULT_CATALOG, ...board.status() },
    })),
  },
  {
    method: 'POST',
    path: '/_local/faults',
    auth: 'none',
    handler: httpHandler({ auth: 'none', body: FaultArmBody }, async ({ body }) => {
      try {
        const armed = board.arm({
          dependency: body.dependency,
          fault: body.fault as FaultName,
          ...(body.operation !== undefined ? { operation: body.operation } : {}),
          ...(body.times !== undefined ? { times: body.times } : {}),
          ...(body.share !== undefined ? { share: body.share } : {}),
        });
        return { status: 201, body: armed };
      } catch (error) {
        if (error instanceof ArmError)
          throw new HttpError(400, 'invalid_field', `Field ${error.message}`, { field: error.field });
        throw error;
      }
    }),
  },
  {
    method: 'PUT',
    path: '/_local/faults',
    auth: 'none',
    handler: httpHandler({ auth: 'none', body: FaultSeedBody }, async ({ body }) => {
      board.reseed(body.seed);
      return { status: 200, body: board.status() };
    }),
  },
  {
    method: 'DELETE',
    path: '/_local/faults',
    auth: 'none',
    handler: httpHandler({ auth: 'none' }, async ({ query }) => {
      const unknown = Object.keys(query).find((name) => name !== 'dependency');
      if (unknown)
        throw new HttpError(400, 'unknown_field', `Unknown query parameter "${unknown}": remove it.`, {
          field: unknown,
        });
      const dependency = query.dependency;
      if (dependency !== undefined && !(DEPENDENCIES as string[]).includes(dependency))
        throw new HttpError(
          400,
          'invalid_field',
          `Query parameter "dependency" must be one of ${DEPENDENCIES.join(', ')}.`,
          { field: 'dependency' },
        );
      const disarmed = board.disarm(dependency as Dependency | undefined);
      return { status: 200, body: { disarmed, ...board.status() } };
    }),
  },
];

/**
 * Routes that exist only in the local control plane (never in the CDK app): the clock, a sweep
 * on demand, the sign-in shortcut, adding members, paying a checkout without a browser and the
 * sent mail. They run through the same HTTP conventions as the real handlers.
 */
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
  throw new HttpError(
    400,
    'invalid_body',
    `Name the Dispatcher with exactly one of "dispatcherId" (such as dsp-1; GET /_local/fleet lists them) and "stack" (the Stack's name, such as s2.acme.stacks.local)${named.dispatcherId !== undefined ? ': remove one of them' : ''}.`,
    { field: named.dispatcherId !== undefined ? 'stack' : 'dispatcherId' },
  );
};

/** The fleet simulator's routes: start a simulated Dispatcher, poll, start and finish runs, inject faults. */
const fleetRoutes = (fleet: FleetSimulator): AdapterRoute[] => {
  const dispatcherOf = (id: string | undefined) => {
    const dispatcher = id && DISPATCHER_ID.test(id) ? fleet.get(id) : undefined;
    if (!dispatcher)
      throw new HttpError(
        404,
        'dispatcher_not_found',
        `No simulated Dispatcher "${id ?? ''}": GET /_local/fleet lists them.`,
      );
    return dispatcher;
  };
  const count = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(1000));
  /** The control plane's answer to a Dispatcher's request, relayed with its own status. */
  const relayed = (answer: ControlPlaneAnswer | undefined, id: string): ControlPlaneAnswer => {
    if (!answer)
      throw new HttpError(
        404,
        'dispatcher_not_found',
        `No simulated Dispatcher "${id}": GET /_local/fleet lists them.`,
      );
    return answer;
  };
  /** The Dispatcher a faults request names: by its id, or by its Stack's name. */
  const dispatcherFor = (target: { dispatcherId: string } | { stack: string }) => {
    if ('dispatcherId' in target) return dispatcherOf(target.dispatcherId);
    const dispatcher = fleet.find(target.stack);
    if (!dispatcher || dispatcher.stackName !== target.stack)
      throw new HttpError(
        404,
        'dispatcher_not_found',
        `No simulated Dispatcher runs the Stack "${target.stack}": start one with POST /_local/fleet/dispatchers; GET /_local/fleet lists them.`,
        { field: 'stack' },
      );
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
            throw new HttpError(409, 'dispatcher_not_started', (error as Error).message);
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
          throw new HttpError(
            400,
            'invalid_field',
            'Field "reason" is for an "invalid" answer only: remove it.',
            {
              field: 'reason',
            },
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
            throw new HttpError(
              400,
              'invalid_body',
              `Send either "fault" (a standing fault of the whole Dispatcher) or "step" and "kind" (a fault of one Plan Change step), not both: remove "${extra}".`,
              { field: extra },
            );
          const dispatcher = dispatcherFor(target);
          dispatcher.fault = fault === 'none' ? null : fault;
          return { status: 200, body: dispatcher.status() };
        }
        const { step, kind } = body;
        if (step === undefined || kind === undefined)
          throw new HttpError(
            400,
            'invalid_field',
            `Field "${step === undefined ? 'step' : 'kind'}" is required: a step fault names its "step" (${FAULT_STEPS.join(', ')}) and its "kind" (${STEP_FAULT_KINDS.join(', ')}); or send "fault" (${[...FLEET_FAULTS, 'none'].join(', ')}).`,
            { field: step === undefined ? 'step' : 'kind' },
          );
        if (kind === 'fail' && body.polls !== undefined)
          throw new HttpError(400, 'invalid_field', 'Field "polls" is for a "delay" fault only: remove it.', {
            field: 'polls',
          });
        if (kind === 'delay' && body.reason !== undefined)
          throw new HttpError(400, 'invalid_field', 'Field "reason" is for a "fail" fault only: remove it.', {
            field: 'reason',
          });
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
        const unknown = Object.keys(query).find((name) => name !== 'dispatcherId' && name !== 'stack');
        if (unknown)
          throw new HttpError(400, 'unknown_field', `Unknown query parameter "${unknown}": remove it.`, {
            field: unknown,
          });
        const dispatcher = dispatcherFor(faultTarget(query));
        return { status: 200, body: fleet.clearFaults(dispatcher.id) };
      }),
    },
  ];
};

export const localRoutes = (
  clock: AdjustableClock,
  sweeper: LocalSweeper,
  parts: LocalRouteParts = {},
): AdapterRoute[] => [
  ...(parts.processor ? [payRoute(parts.processor)] : []),
  ...(parts.mail ? [mailRoute(parts.mail)] : []),
  ...(parts.fleet ? fleetRoutes(parts.fleet) : []),
  ...(parts.faults ? faultRoutes(parts.faults) : []),
  {
    method: 'GET',
    path: '/_local/clock',
    auth: 'none',
    handler: httpHandler({ auth: 'none' }, async ({ now }) => ({
      status: 200,
      body: { now: now.toISOString(), offsetSeconds: clock.offsetSeconds },
    })),
  },
  {
    method: 'POST',
    path: '/_local/clock/advance',
    auth: 'none',
    handler: httpHandler(
      {
        auth: 'none',
        body: v.strictObject({
          seconds: v.pipe(
            v.number('a whole number of seconds'),
            v.integer('a whole number of seconds'),
            v.minValue(0, 'a whole number of seconds, 0 or more (time never goes back)'),
            v.maxValue(MAX_ADVANCE_SECONDS, `at most ${MAX_ADVANCE_SECONDS} seconds (ten years)`),
          ),
        }),
      },
      async ({ body }) => {
        const now = clock.advance(body.seconds);
        // What the processor billed on the way (renewals) reaches the intake before this answers.
        await parts.processor?.flushWebhooks();
        return { status: 200, body: { now: now.toISOString(), offsetSeconds: clock.offsetSeconds } };
      },
    ),
  },
  {
    method: 'GET',
    path: '/_local/sweep',
    auth: 'none',
    // When the last sweep completed (wall clock): the local side of the smoke test's "a sweep completed".
    handler: httpHandler({ auth: 'none' }, async () => ({
      status: 200,
      body: { lastCompletedAt: sweeper.lastCompletedAt?.toISOString() ?? null },
    })),
  },
  {
    method: 'POST',
    path: '/_local/sweep',
    auth: 'none',
    // The reconciler's own time (its Lambda has 60 s, the sweep's budget is 50 s), not an API
    // request's 10 s: a sweep after a month of time travel over many tenants takes longer.
    timeoutMs: 60_000,
    handler: httpHandler({ auth: 'none' }, async () => ({ status: 200, body: await sweeper.runNow() })),
  },
  {
    method: 'POST',
    path: '/_local/plan-change-gates',
    auth: 'none',
    // PLAN_CHANGE_GATES_READY of a running server, so one server shows the console with a gate down
    // and up (the API reads the gates on every request).
    handler: httpHandler(
      {
        auth: 'none',
        body: v.strictObject({
          ready: v.pipe(
            v.array(v.picklist(PLAN_CHANGE_GATES, `one of ${PLAN_CHANGE_GATES.join(', ')}`)),
            v.maxLength(PLAN_CHANGE_GATES.length),
          ),
        }),
      },
      async ({ body }) => {
        process.env.PLAN_CHANGE_GATES_READY = body.ready.join(',');
        return { status: 200, body: { gates: config.planChangeGates() } };
      },
    ),
  },
  {
    method: 'POST',
    path: '/_local/members',
    auth: 'session',
    handler: httpHandler(
      { auth: 'session', role: 'administrator', body: v.strictObject({ login: LoginSchema }) },
      async ({ body, principal, now }) => {
        const added = await addMember(principal.tenantId, localIdentity(body.login), now);
        if (!added)
          throw new HttpError(
            409,
            'login_taken',
            `"${body.login}" already belongs to a user; choose another login.`,
          );
        return { status: 201, body: { userId: added.userId, login: body.login, role: 'member' } };
      },
    ),
  },
  {
    method: 'POST',
    path: '/_local/sign-in',
    auth: 'none',
    handler: httpHandler(
      { auth: 'none', body: v.strictObject({ login: LoginSchema }) },
      async ({ body, now }) => {
        const user = await signInIdentity(localIdentity(body.login), now);
        const token = newSessionToken();
        const session = await createSession(hashSessionToken(token), user, now);
        return {
          status: 200,
          body: { sessionToken: token, tenantId: user.tenantId, userId: user.userId, role: user.role },
          cookies: [sessionCookie(token, new Date(session.expiresAt))],
        };
      },
    ),
  },
];
