/**
 * Writes a NEW generation of the old-items fixture (test/fixtures/items/<generation>/): today's
 * store builders write a representative item of every entity of the table, in each state whose
 * stored shape differs, into a fresh DynamoDB Local; the table is then scanned and every item is
 * kept as DynamoDB returned it, one file per entity, with the date and commit it was written at.
 *
 *   node test/support/item-fixture/generate.ts [generation]   (default: today's date, UTC)
 *
 * Run it only when the store gains an entity or a state whose shape the fixture lacks (the test of
 * old items says which). It never overwrites a generation: the old ones are the point (items
 * written by older code must keep reading), so a new generation goes beside them. See
 * docs/decisions.md, "Old items keep reading (issue 36, item 6)".
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type AttributeValue, DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { exportId } from '#core/exports.ts';
import type { Transition } from '#core/lifecycle.ts';
import { decommissioned, stackOnPlan, tornDown } from '#core/stacks.ts';
import {
  claimCheckout,
  clearCheckout,
  recordCheckoutSession,
  recordCustomer,
  recordDuplicateHandled,
  recordSubscriptionsSeen,
} from '#store/billing.ts';
import { reserveCapacity, setCapacityTotal } from '#store/capacity.ts';
import {
  bindThread,
  clearGuide,
  credentialPutWrite,
  desiredStateBumpWrite,
  getCredential,
  type StoredCredential,
  selectGuide,
  updateCredential,
} from '#store/credentials.ts';
import { recordReconcileFailure } from '#store/due.ts';
import { endExport, recordUpload, startExport } from '#store/exports.ts';
import { claimIdempotencyKey, idempotencyDoneWrite, recordIdempotencyPlan } from '#store/idempotency.ts';
import {
  acquireItemLease,
  type ItemLease,
  type LeaseBusy,
  recordItemChange,
  releaseItemLease,
  settleItemChange,
} from '#store/item-lease.ts';
import { keys } from '#store/keys.ts';
import { commitReconciliation } from '#store/lifecycle.ts';
import { putOAuthState } from '#store/oauth-states.ts';
import { claimEmail, markEmailSent, outboxPut, parkEmail, releaseEmail } from '#store/outbox.ts';
import {
  type ChangeAmounts,
  getPlanChange,
  type PlanChange,
  planChangePut,
  planChangeUpdate,
  recordStartAnswered,
} from '#store/plan-changes.ts';
import { claimProcessorPlace } from '#store/processor-budget.ts';
import { applyEventOnce } from '#store/processor-events.ts';
import { registerProject, setCredentialRoutes } from '#store/projects.ts';
import { createSession, revokeSession } from '#store/sessions.ts';
import {
  type BilledStack,
  firstStackWrites,
  getStack,
  issueDispatcherCredential,
  planChangeStackWrite,
  recordObservedState,
  recordPriceMove,
  type StoredStack,
  stackUpdateWrite,
  teardownWrites,
} from '#store/stacks.ts';
import { claimSweepNudge, takeSweepLease } from '#store/sweep-lease.ts';
import {
  claimMoneyBack,
  completeMoneyBack,
  getTenant,
  lockSlug,
  requestClose,
  stackAddedWrite,
} from '#store/tenants.ts';
import { applyStackWrites } from '#store/transact.ts';
import { addMember, signInIdentity } from '#store/users.ts';
import {
  joinWaitlist,
  listWaitingEntries,
  notifyWaitlistEntry,
  recordWaitlistCheck,
} from '#store/waitlist.ts';
import { ensureTable, localCredentials, startDynamoDbLocal } from '../../../lib/local/dynamodb.ts';
import { freePort } from '../../../lib/local/ports.ts';
import { entityOf, FIXTURE_ROOT, type FixtureFile, storeEntities, storeTypeValues } from './entities.ts';

const TABLE = 'old-items-fixture';
const REGION = 'eu';
const T0 = Date.parse('2026-11-20T09:00:00.000Z');
/** The scenario's time, `minutes` after its start (the store takes time as data). */
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const iso = (minutes: number) => at(minutes).toISOString();

/** What each item shows, by its key (`PK|SK`): the fixture file says it beside the item. */
const states = new Map<string, string>();
const note = (key: { PK: string; SK: string }, state: string) => states.set(`${key.PK}|${key.SK}`, state);

/** Fails the generation loudly: a builder refused a write the scenario needs. */
const must = (applied: boolean | undefined, what: string) => {
  if (!applied) throw new Error(`the scenario could not write: ${what}`);
};

const email = (subject: string) => ({
  subject,
  text: `${subject}.`,
  html: `<p>${subject}.</p>`,
});

const activate = async (
  tenantId: string,
  stack: BilledStack,
  minutes: number,
  options: { reservation: boolean; firstPaidAt?: string },
) => {
  const tenant = await getTenant(tenantId);
  if (!tenant) throw new Error(`no tenant ${tenantId}`);
  const transitions: Transition[] = [
    { from: 'provisioning', to: 'active', reason: 'checkout_completed', graceDeadline: null },
  ];
  must(
    await commitReconciliation({
      tenant,
      settled: { state: 'active', graceDeadline: null },
      transitions,
      nextCheckAt: iso(minutes + 24 * 60),
      now: at(minutes),
      extra: firstStackWrites({
        tenantId,
        region: REGION,
        stack,
        placed: true,
        reservationToRemove: options.reservation,
      }),
      ...(options.firstPaidAt ? { record: { firstPaidAt: options.firstPaidAt } } : {}),
    }),
    `tenant ${tenantId} active`,
  );
  note(keys.history(tenantId, iso(minutes), 0), 'provisioning to active');
};

const stackOf = async (tenantId: string, stackId: string): Promise<StoredStack> => {
  const stack = await getStack(tenantId, stackId);
  if (!stack) throw new Error(`no Stack ${stackId}`);
  return stack;
};

/** The Stack as a builder takes it (without what the store keeps beside the record). */
const recordOf = (stored: StoredStack): BilledStack => {
  const {
    desiredVersion: _v,
    observed: _o,
    openChange: _c,
    runningExport: _e,
    dispatcherCredentialHash: _d,
    projectCount: _p,
    region: _r,
    placed: _pl,
    priceMove: _m,
    ...record
  } = stored;
  return record;
};

const amounts = (adjustment: number): ChangeAmounts => ({
  currency: 'eur',
  subtotal: 4900,
  discount: 0,
  tax: 931,
  total: 5831,
  amountDue: 5831,
  adjustment,
  adjustmentTax: Math.round(adjustment * 0.19),
  adjustmentTotal: adjustment + Math.round(adjustment * 0.19),
  invoiceAt: iso(60 * 24 * 10),
  lines: [{ description: 'Plus Plan for the rest of the period', amount: adjustment, discount: 0, tax: 0 }],
});

const planChange = (
  tenantId: string,
  changeId: string,
  minutes: number,
  fields: Partial<PlanChange> = {},
): PlanChange => ({
  changeId,
  tenantId,
  stackId: 'primary',
  fromPlan: 'standard',
  toPlan: 'plus',
  status: 'waiting_for_capacity',
  step: 'find_capacity',
  confirmedAt: iso(minutes),
  expiresAt: iso(minutes + 7 * 24 * 60),
  updatedAt: iso(minutes),
  requestedBy: 'user-fixture',
  region: REGION,
  fromLocation: 'eu-1a',
  history: [{ status: 'waiting_for_capacity', at: iso(minutes) }],
  estimate: amounts(1200),
  stepStartedAt: iso(minutes),
  commitAttempts: 0,
  version: 1,
  ...fields,
});

/** Moves a stored change on, through the same write the workflow's tasks use. */
const moveChange = async (
  tenantId: string,
  changeId: string,
  next: Parameters<typeof planChangeUpdate>[1],
  minutes: number,
) => {
  const read = await getPlanChange(tenantId, changeId);
  if (!read) throw new Error(`no change ${changeId}`);
  must(await applyStackWrites([planChangeUpdate(read, next, at(minutes))]), `change ${changeId} moved`);
};

/** The lease, taken (the scenario's leases are always free). */
const held = async (taking: Promise<ItemLease | LeaseBusy>): Promise<ItemLease> => {
  const lease = await taking;
  if (!('holder' in lease)) throw new Error('the items lease is busy');
  return lease;
};

const sealed = { keyCiphertext: 'a2V5', iv: 'aXY=', tag: 'dGFn', ciphertext: 'c2VjcmV0' };

const credential = (name: string, fields: Partial<StoredCredential>): StoredCredential => ({
  stackId: 'primary',
  name,
  provider: 'provider-a',
  kind: 'api_key',
  profile: {},
  consent: null,
  sealed,
  materialVersion: 1,
  validation: { state: 'pending' },
  createdAt: iso(200),
  version: 1,
  ...fields,
});

const putCredential = async (tenantId: string, stored: StoredCredential) =>
  must(
    await applyStackWrites([
      credentialPutWrite(tenantId, stored, undefined),
      desiredStateBumpWrite(tenantId, stored.stackId),
    ]),
    `credential ${stored.name}`,
  );

const validate = async (tenantId: string, name: string, fields: Partial<StoredCredential>) => {
  const read = await getCredential(tenantId, 'primary', name);
  if (!read) throw new Error(`no credential ${name}`);
  must(await updateCredential(tenantId, read, fields), `credential ${name} updated`);
};

/** Tenant A: active, first payment made, a Stack with everything a running Stack carries. */
const activeTenant = async (): Promise<string> => {
  const admin = await signInIdentity(
    { provider: 'github', subject: '1001', login: 'ada', email: 'ada@example.test' },
    at(0),
  );
  const tenantId = admin.tenantId;
  note(keys.identity('github', '1001'), 'an administrator’s code-host identity');
  note(keys.user(admin.userId), 'administrator, with an email address');
  note(keys.member(tenantId, admin.userId), 'administrator');
  const member = await addMember(tenantId, { provider: 'github', subject: '1002', login: 'bob' }, at(1));
  if (!member) throw new Error('member not added');
  note(keys.identity('github', '1002'), 'a member’s code-host identity');
  note(keys.user(member.userId), 'member, no email address');
  note(keys.member(tenantId, member.userId), 'member');

  await createSession('a'.repeat(64), { userId: admin.userId, tenantId }, at(2));
  note(keys.session('a'.repeat(64)), 'live');
  await createSession('b'.repeat(64), { userId: member.userId, tenantId }, at(2));
  await revokeSession('b'.repeat(64), at(3));
  note(keys.session('b'.repeat(64)), 'revoked');

  must(await lockSlug(tenantId, 'acme', at(4)), 'slug acme');
  note(keys.slug('acme'), 'claimed by an active tenant');

  // Checkout: a place held, an attempt opened, the customer and its subscriptions seen.
  const reserved = await reserveCapacity({ tenantId, region: REGION, plan: 'standard' }, at(5), at(35));
  if (!reserved.reserved) throw new Error('no place for tenant A');
  must(
    await claimCheckout(
      tenantId,
      { attemptId: 'att-a', plan: 'standard', expiresAt: at(35) },
      at(5),
      undefined,
    ),
    'checkout A',
  );
  await recordCheckoutSession(tenantId, 'att-a', { id: 'cs_fixture_a', url: 'https://pay.test/cs_a' });
  await recordCustomer(tenantId, 'cus_fixture_a');
  await recordSubscriptionsSeen(tenantId, ['sub_fixture_a', 'sub_fixture_a2'], 'sub_fixture_a');
  await recordDuplicateHandled(tenantId, 'sub_fixture_a2', {
    handledAt: iso(12),
    refundedAmount: 4900,
    refunds: 1,
    reason: 'second_checkout',
  });
  await clearCheckout(tenantId, 'att-a');
  note(keys.billing(tenantId), 'subscribed: customer, subscription, a duplicate ended, checkout done');
  must(
    (await applyEventOnce(
      {
        eventId: 'evt_fixture_paid',
        type: 'checkout.session.completed',
        tenantId,
        subscriptionId: 'sub_fixture_a',
      },
      at(10),
    )) === 'applied',
    'event applied',
  );
  note(keys.processorEvent('evt_fixture_paid'), 'matched to a tenant');

  const primary: BilledStack = {
    ...stackOnPlan({
      stackId: 'primary',
      name: 's1.acme.stacks.test',
      plan: 'standard',
      location: 'eu-1a',
      createdAt: iso(11),
    }),
    billedPriceId: 'price_standard_2026',
    priceLock: {
      state: 'locked',
      plan: 'standard',
      monthlyPrice: { amount: 4900, currency: 'EUR' },
      lockedAt: iso(11),
    },
  };
  await activate(tenantId, primary, 11, { reservation: true, firstPaidAt: iso(10) });
  note(keys.tenant(tenantId), 'active: slug, first payment, due for its daily look, two Stacks');

  // A second Stack, added.
  const second: BilledStack = {
    ...stackOnPlan({
      stackId: 'stk_second',
      name: 's2.acme.stacks.test',
      plan: 'standard',
      location: 'eu-1a',
      createdAt: iso(20),
    }),
    billedPriceId: 'price_standard_2026',
  };
  must(
    await applyStackWrites([
      ...firstStackWrites({
        tenantId,
        region: REGION,
        stack: second,
        placed: true,
        reservationToRemove: false,
      }),
      stackAddedWrite(tenantId, 2),
    ]),
    'second Stack',
  );
  note(keys.stack(tenantId, 'stk_second'), 'running, added, no Dispatcher report yet');

  // The Dispatcher: a credential issued, then rotated (the first one retires), a report.
  must(
    await issueDispatcherCredential({
      tenantId,
      stackId: 'primary',
      credentialId: 'dc_1',
      secretHash: 'c'.repeat(64),
      previousHash: undefined,
      now: at(30),
      retiresAt: at(30),
    }),
    'dispatcher credential',
  );
  must(
    await issueDispatcherCredential({
      tenantId,
      stackId: 'primary',
      credentialId: 'dc_2',
      secretHash: 'd'.repeat(64),
      previousHash: 'c'.repeat(64),
      now: at(40),
      retiresAt: at(100),
    }),
    'dispatcher credential rotated',
  );
  note(keys.dispatcherCredential('c'.repeat(64)), 'retired (rotated)');
  note(keys.dispatcherCredential('d'.repeat(64)), 'current');
  must(
    await recordObservedState(tenantId, 'primary', {
      appliedVersion: 1,
      health: 'healthy',
      activeRuns: 2,
      localHostExecutor: false,
      tornDown: false,
      operation: { id: 'pc_old', step: 'verify', outcome: 'done', addressChanged: false },
      reportedAt: iso(41),
    }),
    'observed state',
  );

  // Projects, Credentials, the Guide, a Thread.
  const project = {
    projectId: 'prj_1',
    stackId: 'primary',
    name: 'web',
    repository: 'acme/Web',
    registeredAt: iso(50),
    credentialRoutes: {},
  };
  must(await registerProject(tenantId, project, 10), 'project');
  must(
    await setCredentialRoutes(tenantId, 'primary', 'prj_1', {
      intake: { primary: 'team-key' },
      dispatch: { primary: 'team-key', fallback: 'ada-oauth' },
    }),
    'routes',
  );
  note(keys.project(tenantId, 'primary', 'prj_1'), 'with Credential Routes');
  note(keys.projectRepository(tenantId, 'primary', 'acme/Web'), 'the repository’s claim');

  await putCredential(
    tenantId,
    credential('team-key', { profile: { dispatch: { model: 'model-m', effort: 'medium' } } }),
  );
  await validate(tenantId, 'team-key', { validation: { state: 'valid', checkedAt: iso(210) } });
  note(keys.credential(tenantId, 'primary', 'team-key'), 'api_key, valid, with a runtime profile');
  await putCredential(
    tenantId,
    credential('ada-oauth', {
      kind: 'oauth_token',
      consent: { userId: admin.userId, login: 'ada', at: iso(200), textVersion: '2026-11' },
    }),
  );
  note(keys.credential(tenantId, 'primary', 'ada-oauth'), 'oauth_token with consent, pending validation');
  await putCredential(tenantId, credential('broken', { provider: 'provider-c' }));
  await validate(tenantId, 'broken', {
    validation: {
      state: 'invalid',
      reasonCode: 'provider_refused',
      dispatcherReason: 'HTTP 401 from the provider',
      checkedAt: iso(215),
    },
  });
  note(keys.credential(tenantId, 'primary', 'broken'), 'invalid, with our code and the Dispatcher’s words');
  const { sealed: _none, ...ambient } = credential('host', {
    kind: 'ambient',
    consent: { userId: admin.userId, login: 'ada', at: iso(200), textVersion: '2026-11' },
  });
  await putCredential(tenantId, ambient);
  note(keys.credential(tenantId, 'primary', 'host'), 'ambient: no sealed material');
  await putCredential(tenantId, credential('old', {}));
  await validate(tenantId, 'old', {
    archivedAt: iso(220),
    rotatedAt: iso(219),
    materialVersion: 2,
    deletion: { tokenHash: 'e'.repeat(64), threadCount: 1, expiresAt: iso(230) },
  });
  note(keys.credential(tenantId, 'primary', 'old'), 'rotated, archived, deletion awaiting its confirmation');

  await selectGuide(tenantId, 'primary', 'team-key', at(221));
  note(keys.guideSelection(tenantId, 'primary'), 'a Credential selected');
  await selectGuide(tenantId, 'stk_second', 'old', at(221));
  must(await clearGuide(tenantId, 'stk_second', 'old', 'credential_archived', at(222)), 'guide cleared');
  note(keys.guideSelection(tenantId, 'stk_second'), 'cleared, with why');
  must(
    await bindThread(tenantId, {
      threadId: 'thr_1',
      stackId: 'primary',
      projectId: 'prj_1',
      activity: 'dispatch',
      credentialName: 'team-key',
      position: 'primary',
      model: 'model-m',
      effort: 'medium',
      createdAt: iso(223),
    }),
    'thread',
  );
  note(keys.thread(tenantId, 'primary', 'thr_1'), 'bound to a Project’s primary Credential');

  // Exports: one ready, one failed, one running (the Stack points at it).
  const exports = [
    exportId(at(300), '0000000000a1'),
    exportId(at(310), '0000000000a2'),
    exportId(at(320), '0000000000a3'),
  ] as const;
  const start = async (id: string, minutes: number, previous: string | undefined) =>
    must(
      await startExport(
        tenantId,
        {
          exportId: id,
          stackId: 'primary',
          status: 'requested',
          requestedAt: iso(minutes),
          requestedBy: admin.userId,
          objectKey: `exports/${id}.tar.gz`,
        },
        previous,
      ),
      `export ${id}`,
    );
  await start(exports[0], 300, undefined);
  must(await recordUpload(tenantId, 'primary', exports[0], 'upload-1'), 'upload');
  must(
    await endExport(tenantId, 'primary', exports[0], {
      status: 'ready',
      readyAt: iso(305),
      sizeBytes: 123456,
    }),
    'export ready',
  );
  note(keys.stackExport(tenantId, 'primary', exports[0]), 'ready, with its size and upload');
  await start(exports[1], 310, undefined);
  must(
    await endExport(tenantId, 'primary', exports[1], {
      status: 'failed',
      failedAt: iso(315),
      failureCode: 'build_failed',
      dispatcherReason: 'tar exited 2',
    }),
    'export failed',
  );
  note(keys.stackExport(tenantId, 'primary', exports[1]), 'failed, with our code and the Dispatcher’s words');
  await start(exports[2], 320, undefined);
  note(keys.stackExport(tenantId, 'primary', exports[2]), 'requested (running)');

  // Idempotency: one request done, one still held.
  const done = await claimIdempotencyKey(tenantId, 'key-done', '{"plan":"standard"}', at(400));
  if (!done.claimed) throw new Error('claim');
  await recordIdempotencyPlan(done.claim, { stackId: 'stk_second' });
  must(
    await applyStackWrites([idempotencyDoneWrite(done.claim, 201, { stackId: 'stk_second' })]),
    'idempotency done',
  );
  note(keys.idempotency(tenantId, 'key-done'), 'done, with its answer');
  const pending = await claimIdempotencyKey(tenantId, 'key-pending', '{"plan":"plus"}', at(401));
  if (!pending.claimed) throw new Error('claim');
  note(keys.idempotency(tenantId, 'key-pending'), 'pending, held by a request');

  // Prices: a move to today's price decided, then a Plan Change confirmed (the Stack points at it).
  must(
    await recordPriceMove(tenantId, await stackOf(tenantId, 'stk_second'), {
      fromPriceId: 'price_standard_2026',
      toPriceId: 'price_standard_2027',
      items: [{ itemId: 'si_2', priceId: 'price_standard_2027', quantity: 1 }],
      decidedAt: iso(450),
    }),
    'price move',
  );
  await planChanges(tenantId);
  note(
    keys.stack(tenantId, 'primary'),
    'running, price lock, Dispatcher report and credential, Projects, an export and a Plan Change under way',
  );

  // The subscription items' lease, held, with a settled commit and a request being sent.
  const lease = await held(acquireItemLease(tenantId, 'plan-change:pc-running', at(600), 60));
  must(
    await recordItemChange(
      lease,
      {
        owner: 'plan-change:pc-done',
        request: {
          op: 'commit',
          subscriptionId: 'sub_fixture_a',
          items: [{ itemId: 'si_1', priceId: 'price_plus_2026', quantity: 1 }],
          key: 'commit-pc-done-0',
          prorationDate: iso(500),
        },
        attempt: 0,
        state: 'sending',
        replay: true,
        at: iso(600),
      },
      at(600),
    ),
    'journal commit',
  );
  must(
    await settleItemChange(lease, 'plan-change:pc-done', 'commit-pc-done-0', {
      state: 'applied',
      result: { adjustment: 1200, currency: 'eur', period: { start: iso(0), end: iso(43200) } },
    }),
    'journal settled',
  );
  must(
    await recordItemChange(
      lease,
      {
        owner: 'add-stack:stk_second',
        request: {
          op: 'items',
          subscriptionId: 'sub_fixture_a',
          items: [{ priceId: 'price_standard_2026', quantity: 2 }],
          key: 'add-stk_second-0',
          proration: 'create_prorations',
        },
        attempt: 0,
        state: 'sending',
        replay: false,
        at: iso(600.5),
      },
      at(600.5),
    ),
    'journal items',
  );
  note(keys.itemLease(tenantId), 'held, a settled commit and a request being sent in its journal');
  return tenantId;
};

/** Tenant A's Plan Changes: done, rolled back, queued, and one under way on its first Stack. */
const planChanges = async (tenantId: string) => {
  must(await applyStackWrites([planChangePut(planChange(tenantId, 'pc-done', 480))]), 'pc-done');
  await moveChange(
    tenantId,
    'pc-done',
    {
      status: 'completed',
      step: 'done',
      targetLocation: 'eu-1a',
      healthyAt: iso(500),
      addressChanged: false,
      billingItems: [{ itemId: 'si_1', priceId: 'price_plus_2026', quantity: 1 }],
      final: {
        adjustment: 1200,
        currency: 'eur',
        committedAt: iso(505),
        proratedFrom: iso(500),
        period: { start: iso(0), end: iso(43200) },
      },
      commitAttempts: 1,
      reasonCode: 'completed',
      stepStartedAt: iso(505),
      stepVersion: 4,
    },
    505,
  );
  note(keys.planChange(tenantId, 'pc-done'), 'completed and billed');

  must(await applyStackWrites([planChangePut(planChange(tenantId, 'pc-rolled', 485))]), 'pc-rolled');
  await moveChange(
    tenantId,
    'pc-rolled',
    {
      status: 'rolled_back',
      step: 'done',
      reasonCode: 'switch_failed',
      dispatcherReason: 'volume attach failed on host-7',
      estimate: null,
    },
    490,
  );
  note(keys.planChange(tenantId, 'pc-rolled'), 'rolled back, with our code and the Dispatcher’s words');

  must(
    await applyStackWrites([planChangePut(planChange(tenantId, 'pc-queued', 510), iso(510))]),
    'pc-queued',
  );
  note(keys.planChange(tenantId, 'pc-queued'), 'waiting for capacity, its start still owed');

  must(
    await applyStackWrites([planChangePut(planChange(tenantId, 'pc-running', 520), iso(520))]),
    'pc-running',
  );
  await recordStartAnswered(tenantId, 'pc-running');
  await moveChange(
    tenantId,
    'pc-running',
    { status: 'switching', step: 'switch', targetLocation: 'eu-1b', stepStartedAt: iso(530), stepVersion: 3 },
    530,
  );
  const stored = await stackOf(tenantId, 'primary');
  must(
    await applyStackWrites([
      planChangeStackWrite(
        tenantId,
        stored,
        {
          ...recordOf(stored),
          operation: {
            kind: 'plan_change',
            id: 'pc-running',
            step: 'switch',
            target: { plan: 'plus', location: 'eu-1b' },
          },
        },
        { id: 'pc-running', status: 'switching' },
      ),
    ]),
    'stack operation',
  );
  note(keys.planChange(tenantId, 'pc-running'), 'switching: a place held, its start answered');
};

/** Tenant B: provisioning, its checkout open, its administrator asked to close. */
const provisioningTenant = async () => {
  const admin = await signInIdentity({ provider: 'github', subject: '2001', login: 'bea' }, at(1000));
  const tenantId = admin.tenantId;
  note(keys.tenant(tenantId), 'provisioning, close requested');
  note(keys.identity('github', '2001'), 'an administrator’s code-host identity');
  note(keys.user(admin.userId), 'administrator, no email address');
  note(keys.member(tenantId, admin.userId), 'administrator');
  const reserved = await reserveCapacity({ tenantId, region: REGION, plan: 'plus' }, at(1001), at(1031));
  if (!reserved.reserved) throw new Error('no place for tenant B');
  note(keys.reservation(REGION, tenantId), 'held for an open checkout');
  must(
    await claimCheckout(
      tenantId,
      { attemptId: 'att-b', plan: 'plus', expiresAt: at(1031) },
      at(1001),
      undefined,
    ),
    'checkout B',
  );
  await recordCheckoutSession(tenantId, 'att-b', { id: 'cs_fixture_b', url: 'https://pay.test/cs_b' });
  note(keys.billing(tenantId), 'checkout open, no customer yet');
  must(await requestClose(tenantId, at(1002)), 'close requested');
  const joined = await joinWaitlist(
    { tenantId, plan: 'pro', region: REGION, joinedBy: admin.userId },
    at(1003),
  );
  note(keys.waitlist(tenantId, joined.entry.plan), 'waiting');
  await putOAuthState('f'.repeat(64), {
    codeVerifier: 'verifier-fixture',
    redirectUri: 'https://app.test/auth/callback',
    createdAt: iso(1004),
    expiresAt: iso(1014),
  });
  note(keys.oauthState('f'.repeat(64)), 'a sign-in under way');
};

/** Tenant C: active, then past due (grace running), a failed look, a money back under way. */
const pastDueTenant = async () => {
  const admin = await signInIdentity(
    { provider: 'github', subject: '3001', login: 'cy', email: 'cy@example.test' },
    at(2000),
  );
  const tenantId = admin.tenantId;
  note(keys.identity('github', '3001'), 'an administrator’s code-host identity');
  note(keys.user(admin.userId), 'administrator, with an email address');
  note(keys.member(tenantId, admin.userId), 'administrator');
  must(await lockSlug(tenantId, 'cyan', at(2001)), 'slug cyan');
  note(keys.slug('cyan'), 'claimed by a past-due tenant');
  await activate(
    tenantId,
    stackOnPlan({
      stackId: 'primary',
      name: 's1.cyan.stacks.test',
      plan: 'plus',
      location: 'eu-1a',
      createdAt: iso(2002),
    }),
    2002,
    { reservation: false, firstPaidAt: iso(2002) },
  );
  note(keys.stack(tenantId, 'primary'), 'running, as first placed (no price kept on it)');
  const claimed = await claimMoneyBack(tenantId, {
    requestedAt: iso(2003),
    startedAt: iso(2003),
    email: 'cy@example.test',
  });
  if (!claimed) throw new Error('money back C');
  const tenant = await getTenant(tenantId);
  if (!tenant) throw new Error('tenant C');
  const graceDeadline = iso(2010 + 7 * 24 * 60);
  must(
    await commitReconciliation({
      tenant,
      settled: { state: 'past-due', graceDeadline },
      transitions: [{ from: 'active', to: 'past-due', reason: 'payment_failed', graceDeadline }],
      nextCheckAt: iso(2011),
      now: at(2010),
    }),
    'past due',
  );
  note(keys.history(tenantId, iso(2010), 0), 'active to past-due');
  must(
    await recordReconcileFailure({ tenantId, dueAt: iso(2011) }, 2, at(2020), at(2012)),
    'reconcile failure',
  );
  note(keys.tenant(tenantId), 'past-due with its grace deadline, two failed looks, money back under way');

  // A waitlist entry notified (its email in the outbox), and what the sweep last saw.
  const joined = await joinWaitlist(
    { tenantId, plan: 'plus', region: REGION, joinedBy: admin.userId },
    at(2030),
  );
  const waiting = (await listWaitingEntries()).entries.find((entry) => entry.tenantId === tenantId);
  if (!waiting) throw new Error('waiting entry');
  must(
    await notifyWaitlistEntry(
      waiting,
      outboxPut(
        `waitlist:${tenantId}:plus:${joined.entry.joinedAt}`,
        'cy@example.test',
        email('A place is free'),
        at(2031),
      ),
      at(2031),
    ),
    'waitlist notified',
  );
  note(keys.waitlist(tenantId, 'plus'), 'notified');
  note(keys.outbox(`waitlist:${tenantId}:plus:${joined.entry.joinedAt}`), 'pending (new)');
  await recordWaitlistCheck({
    joins: 2,
    placeable: { eu: 'standard,plus' },
    regions: [REGION],
    now: at(2032),
  });
  note(keys.waitlistWatch(), 'joins counted, last full read');

  // The items lease given back with a journal entry its owner has not come back for.
  const lease = await held(acquireItemLease(tenantId, 'reprice:primary:price_plus_2027', at(2040), 60));
  must(
    await recordItemChange(
      lease,
      {
        owner: 'reprice:primary:price_plus_2027',
        request: {
          op: 'items',
          subscriptionId: 'sub_fixture_c',
          items: [{ itemId: 'si_c', priceId: 'price_plus_2027', quantity: 1 }],
          key: 'reprice-c-0',
          proration: 'none',
        },
        attempt: 1,
        state: 'sending',
        replay: true,
        at: iso(2040),
      },
      at(2040),
    ),
    'journal C',
  );
  await settleItemChange(lease, 'reprice:primary:price_plus_2027', 'reprice-c-0', { state: 'refused' });
  await releaseItemLease(tenantId, lease.holder);
  note(keys.itemLease(tenantId), 'free (no holder), a refused request left in its journal');
};

/** Tenant D: refunded, left, billing stopped and its Stack torn down. */
const leftTenant = async () => {
  const admin = await signInIdentity(
    { provider: 'github', subject: '4001', login: 'di', email: 'di@example.test' },
    at(3000),
  );
  const tenantId = admin.tenantId;
  note(keys.identity('github', '4001'), 'an administrator’s code-host identity');
  note(keys.user(admin.userId), 'administrator of a tenant that left');
  note(keys.member(tenantId, admin.userId), 'administrator');
  must(await lockSlug(tenantId, 'dune', at(3001)), 'slug dune');
  note(keys.slug('dune'), 'claimed by a tenant that left');
  await activate(
    tenantId,
    stackOnPlan({
      stackId: 'primary',
      name: 's1.dune.stacks.test',
      plan: 'standard',
      location: 'eu-1a',
      createdAt: iso(3002),
    }),
    3002,
    { reservation: false, firstPaidAt: iso(3002) },
  );
  const claim = await claimMoneyBack(tenantId, {
    requestedAt: iso(3003),
    startedAt: iso(3004),
    email: 'di@example.test',
  });
  if (!claim) throw new Error('money back D');
  must(
    await completeMoneyBack(
      tenantId,
      { grantedAt: iso(3005), refundedAmount: 4900, refunds: 1, currency: 'eur' },
      outboxPut(`money-back:${tenantId}`, 'di@example.test', email('Your money back'), at(3005)),
    ),
    'money back granted',
  );
  const teardownAt = iso(3006 + 30 * 24 * 60);
  const leaving = await getTenant(tenantId);
  const stack = await stackOf(tenantId, 'primary');
  if (!leaving) throw new Error('tenant D');
  must(
    await commitReconciliation({
      tenant: leaving,
      settled: { state: 'decommissioning', graceDeadline: null },
      transitions: [{ from: 'active', to: 'decommissioning', reason: 'refund_granted', graceDeadline: null }],
      nextCheckAt: iso(3010),
      now: at(3006),
      record: { leftBy: 'refund_granted', teardownAt },
      extra: [
        stackUpdateWrite(
          tenantId,
          stack,
          decommissioned(recordOf(stack), { teardownAt, admissionOpen: false }),
        ),
      ],
    }),
    'leaving',
  );
  note(keys.history(tenantId, iso(3006), 0), 'active to decommissioning');
  const left = await getTenant(tenantId);
  const closing = await stackOf(tenantId, 'primary');
  if (!left) throw new Error('tenant D');
  must(
    await commitReconciliation({
      tenant: left,
      settled: { state: 'decommissioning', graceDeadline: null },
      transitions: [],
      nextCheckAt: null,
      now: at(3010),
      record: { billingStoppedAt: iso(3008), tornDownAt: iso(3010) },
      extra: teardownWrites(tenantId, REGION, [
        { stored: closing, next: tornDown(recordOf(closing), iso(3010)) },
      ]),
    }),
    'torn down',
  );
  note(
    keys.tenant(tenantId),
    'decommissioning: left (refund), billing stopped, torn down, money back granted',
  );
  note(keys.stack(tenantId, 'primary'), 'torn down, its place given back');
  note(keys.outbox(`money-back:${tenantId}`), 'pending (new)');
};

/** The deployment's own items: capacity, outbox states, the sweep's and the processor budget's. */
const deploymentItems = async () => {
  await setCapacityTotal({ region: REGION, location: 'eu-1a', plan: 'standard', total: 10 }, at(-10));
  await setCapacityTotal({ region: REGION, location: 'eu-1a', plan: 'plus', total: 4 }, at(-10));
  await setCapacityTotal({ region: REGION, location: 'eu-1b', plan: 'plus', total: 2 }, at(-10));
  await setCapacityTotal({ region: REGION, location: 'eu-1b', plan: 'pro', total: 0 }, at(-10));
  note(keys.capacity(REGION, 'eu-1a', 'standard'), 'places in use by three tenants');
  note(keys.capacity(REGION, 'eu-1a', 'plus'), 'a place in use');
  note(keys.capacity(REGION, 'eu-1b', 'plus'), 'none in use');
  note(keys.capacity(REGION, 'eu-1b', 'pro'), 'no places');

  const outbox = async (key: string, minutes: number) =>
    must(await applyStackWrites([outboxPut(key, 'ops@example.test', email(key), at(minutes))]), key);
  await outbox('fixture-sent', 4000);
  must((await claimEmail('fixture-sent', at(4001), at(4003))) !== undefined, 'claim sent');
  must(await markEmailSent('fixture-sent', 'ses-message-1', at(4002)), 'sent');
  note(keys.outbox('fixture-sent'), 'sent, with its message id');
  await outbox('fixture-retrying', 4000);
  const retry = await claimEmail('fixture-retrying', at(4001), at(4003));
  if (!retry) throw new Error('claim retrying');
  await releaseEmail('fixture-retrying', retry.attempt, 'Throttling', at(4010));
  note(keys.outbox('fixture-retrying'), 'pending again after a failed attempt');
  await outbox('fixture-sending', 4000);
  must((await claimEmail('fixture-sending', at(4001), at(4003))) !== undefined, 'claim sending');
  note(keys.outbox('fixture-sending'), 'claimed (sending)');
  await outbox('fixture-failed', 4000);
  const last = await claimEmail('fixture-failed', at(4001), at(4003));
  if (!last) throw new Error('claim failed');
  must(
    await parkEmail('fixture-failed', last.attempt, 'MessageRejected', at(4002), 'after_failed_attempt'),
    'parked',
  );
  note(keys.outbox('fixture-failed'), 'parked (failed)');

  must(
    (await applyEventOnce(
      { eventId: 'evt_fixture_orphan', type: 'invoice.paid', tenantId: undefined, subscriptionId: undefined },
      at(4100),
    )) === 'unmatched',
    'unmatched event',
  );
  note(keys.processorEvent('evt_fixture_orphan'), 'no tenant');
  must(await claimProcessorPlace('acct_fixture', 1_789_000_000, 25, 1_789_086_400), 'processor place');
  must(await claimProcessorPlace('acct_fixture', 1_789_000_000, 25, 1_789_086_400), 'processor place');
  note(keys.processorSlot('acct_fixture', 1_789_000_000), 'two places taken');
  const lease = await takeSweepLease('sweep-fixture', at(4200), at(4205));
  must('holder' in lease, 'sweep lease');
  note(keys.sweepLease(), 'held');
  must(await claimSweepNudge(at(4201), 5000), 'sweep nudge');
  note(keys.sweepNudge(), 'a nudge claimed');
};

/** Sorts an item's attributes (and those of its maps) so that a generation reads in a stable order. */
const sortedItem = (value: AttributeValue): AttributeValue => {
  if (value.M)
    return {
      M: Object.fromEntries(
        Object.entries(value.M)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([name, inner]) => [name, sortedItem(inner)]),
      ),
    };
  if (value.L) return { L: value.L.map(sortedItem) };
  if (value.SS) return { SS: [...value.SS].sort() };
  return value;
};

/** One line per scalar attribute value (`{ "S": "..." }`): a generation stays readable. */
const compactValues = (json: string) =>
  json.replace(/\{\n\s+("(?:S|N|B|BOOL|NULL)": [^\n]+)\n\s+\}/g, '{ $1 }');

const scanAll = async (client: DynamoDBClient) => {
  const items: Record<string, AttributeValue>[] = [];
  let startKey: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: TABLE, ExclusiveStartKey: startKey }));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
};

const main = async () => {
  const generation = process.argv[2] ?? new Date().toISOString().slice(0, 10);
  const folder = path.join(FIXTURE_ROOT, generation);
  if (existsSync(folder))
    throw new Error(
      `${folder} exists: a generation is never overwritten (name a new one: generate.ts <name>)`,
    );
  const dynamo = await startDynamoDbLocal({ port: await freePort() });
  try {
    await ensureTable(dynamo.endpoint, TABLE);
    Object.assign(process.env, {
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: localCredentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: localCredentials.secretAccessKey,
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      TABLE_NAME: TABLE,
      POWERTOOLS_LOG_LEVEL: 'SILENT',
    });
    await deploymentItems();
    await activeTenant();
    await provisioningTenant();
    await pastDueTenant();
    await leftTenant();

    const client = new DynamoDBClient({ endpoint: dynamo.endpoint });
    const scanned = await scanAll(client);
    client.destroy();
    const byEntity = new Map<string, { state: string; item: Record<string, AttributeValue> }[]>();
    for (const item of scanned) {
      const pk = item.PK?.S ?? '';
      const sk = item.SK?.S ?? '';
      const entity = entityOf(pk, sk);
      const state = states.get(`${pk}|${sk}`);
      if (state === undefined)
        throw new Error(`the scenario wrote ${pk} / ${sk} without saying what it shows`);
      const sorted = sortedItem({ M: item }).M ?? {};
      byEntity.set(entity, [...(byEntity.get(entity) ?? []), { state, item: sorted }]);
    }
    const missing = storeEntities().filter((entity) => !byEntity.has(entity));
    if (missing.length > 0) throw new Error(`the scenario wrote no item of: ${missing.join(', ')}`);
    const types = new Set(scanned.map((item) => item.type?.S));
    const untyped = storeTypeValues().filter((type) => !types.has(type));
    if (untyped.length > 0) throw new Error(`the scenario wrote no item of type: ${untyped.join(', ')}`);

    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    const writtenAt = new Date().toISOString();
    mkdirSync(folder, { recursive: true });
    for (const [entity, items] of [...byEntity].sort(([a], [b]) => a.localeCompare(b))) {
      const file: FixtureFile = {
        entity,
        writtenAt,
        commit,
        writtenBy: 'test/support/item-fixture/generate.ts',
        items: items.sort((a, b) =>
          `${a.item.PK?.S}|${a.item.SK?.S}`.localeCompare(`${b.item.PK?.S}|${b.item.SK?.S}`),
        ),
      };
      writeFileSync(path.join(folder, `${entity}.json`), `${compactValues(JSON.stringify(file, null, 2))}\n`);
    }
    // The repository's formatter has the last word on the files' layout (biome checks them too).
    execFileSync('npx', ['biome', 'format', '--write', folder], { stdio: 'inherit' });
    console.log(`wrote ${scanned.length} items of ${byEntity.size} entities to ${folder}`);
  } finally {
    await dynamo.stop();
  }
};

await main();
