import * as v from 'valibot';
import { HttpError } from '../../functions/http/errors.ts';
import { httpHandler } from '../../functions/http/handler.ts';
import { hashSessionToken, newSessionToken, sessionCookie } from '../../functions/http/session-token.ts';
import { createSession } from '../../functions/store/sessions.ts';
import { addMember, type CodeHostIdentity, signInIdentity } from '../../functions/store/users.ts';
import type { AdjustableClock } from './clock.ts';
import { accountEmail, LOGIN_PATTERN } from './code-host.ts';
import { FLEET_FAULTS, type FleetSimulator } from './fleet.ts';
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
}

/**
 * Routes that exist only in the local control plane (never in the CDK app): the clock, a sweep
 * on demand, the sign-in shortcut, adding members, paying a checkout without a browser and the
 * sent mail. They run through the same HTTP conventions as the real handlers.
 */
const DISPATCHER_ID = /^dsp-\d{1,9}$/;

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
          }),
        },
        async ({ body }) => {
          try {
            return {
              status: 201,
              body: await fleet.start(body.credential, { localHostExecutor: body.localHostExecutor }),
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
      handler: httpHandler({ auth: 'none' }, async () => ({
        status: 200,
        body: { dispatchers: await fleet.tick() },
      })),
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
      path: '/_local/fleet/faults',
      auth: 'none',
      handler: httpHandler(
        {
          auth: 'none',
          body: v.strictObject({
            dispatcherId: v.string(),
            fault: v.picklist([...FLEET_FAULTS, 'none']),
          }),
        },
        async ({ body }) => {
          const dispatcher = dispatcherOf(body.dispatcherId);
          dispatcher.fault = body.fault === 'none' ? null : body.fault;
          return { status: 200, body: dispatcher.status() };
        },
      ),
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
    method: 'POST',
    path: '/_local/sweep',
    auth: 'none',
    handler: httpHandler({ auth: 'none' }, async () => ({ status: 200, body: await sweeper.runNow() })),
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
