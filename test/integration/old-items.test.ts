import { randomUUID } from 'node:crypto';
import {
  type AttributeValue,
  BatchWriteItemCommand,
  DeleteTableCommand,
  DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTerminal } from '#core/plan-change.ts';
import { getBilling } from '#store/billing.ts';
import { listInventory } from '#store/capacity.ts';
import { db } from '#store/client.ts';
import { getCredential, getGuideSelection, getThread, listCredentials } from '#store/credentials.ts';
import { findDispatcherCredential } from '#store/dispatcher.ts';
import { listDueTenants } from '#store/due.ts';
import { getExport, listRecentExports } from '#store/exports.ts';
import { listHistory } from '#store/history.ts';
import { claimIdempotencyKey } from '#store/idempotency.ts';
import { readItemLease } from '#store/item-lease.ts';
import { consumeOAuthState } from '#store/oauth-states.ts';
import { getEmail, listPendingEmails, listTroubledEmails } from '#store/outbox.ts';
import { getPlanChange, listPlanChanges, listStartsOwed, scanOpenPlanChanges } from '#store/plan-changes.ts';
import { claimProcessorPlace } from '#store/processor-budget.ts';
import { applyEventOnce, tenantOfCustomer } from '#store/processor-events.ts';
import { getProject, listProjects, registerProject, removeProject } from '#store/projects.ts';
import { getSession } from '#store/sessions.ts';
import { getStack, listStacks } from '#store/stacks.ts';
import { lastSweepNudge, takeSweepLease } from '#store/sweep-lease.ts';
import { getTenant, tenantIdOfSlug } from '#store/tenants.ts';
import { administratorEmails, getMembership, getUser, signInIdentity } from '#store/users.ts';
import { listWaitingEntries, readWaitlistWatch, tenantWaitlist } from '#store/waitlist.ts';
import { ensureTable } from '../../lib/local/dynamodb.ts';
import {
  entityOf,
  type FixtureFile,
  fixtureGenerations,
  storeEntities,
  storeTypeValues,
} from '../support/item-fixture/entities.ts';

/*
 * Old items keep reading (issue 36, item 6). The table has no migrations: code meets items that
 * older code wrote. test/fixtures/items/ keeps items as the store's builders wrote them, one
 * generation per folder (test/support/item-fixture/generate.ts), and every generation is loaded
 * into a fresh table and read back through today's store: each item must parse, and what it
 * stored must come through. A schema change that makes an old item unreadable fails here; it
 * keeps its new fields optional, or brings a migration with its own test (docs/decisions.md).
 */

type Item = Record<string, unknown>;
const generations = fixtureGenerations();
/** Later than any time in a fixture: a due, pending or owed item is due by then. */
const FAR = new Date('2100-01-01T00:00:00.000Z');

const str = (item: Item, name: string): string => {
  const value = item[name];
  if (typeof value !== 'string') throw new Error(`the stored item has no ${name}`);
  return value;
};
/** The part of a key after `prefix` (a key's parts are `#`-separated). */
const part = (key: string, index: number): string => key.split('#')[index] ?? '';

/** A stored value as a reader returns it: string sets come back as sorted lists. */
const asRead = (value: unknown): unknown =>
  value instanceof Set
    ? [...value].sort()
    : Array.isArray(value)
      ? value.map(asRead)
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, asRead(inner)]))
        : value;

/**
 * What the stored item has must come through the read: each of `fields` that the item stores is
 * read with the value stored, and nothing the read returns contradicts the item (every field of
 * the read that the item stores holds the stored value; a nested object may leave out what its
 * schema does not read).
 */
const comesThrough = (read: unknown, stored: Item, fields: string[]) => {
  expect(read, 'the item reads').toBeDefined();
  const got = read as Item;
  for (const field of fields)
    if (stored[field] !== undefined) expect(got[field], field).toEqual(asRead(stored[field]));
  for (const [field, value] of Object.entries(got)) {
    if (!(field in stored)) continue;
    const expected = asRead(stored[field]);
    if (value !== null && typeof value === 'object') expect(expected, field).toMatchObject(value);
    else expect(value, field).toEqual(expected);
  }
};

/**
 * One reader per entity: reads a stored item back through today's store functions (the ones the
 * handlers, the sweep and the workflow use) and checks what came through. `all` is every stored
 * item of the generation (some reads need a neighbour: an identity's user, say).
 */
const READERS: Record<string, (item: Item, all: { entity: string; item: Item }[]) => Promise<void>> = {
  tenant: async (item) => {
    const tenantId = str(item, 'tenantId');
    comesThrough(await getTenant(tenantId), item, [
      'tenantId',
      'billingState',
      'homeRegion',
      'slug',
      'createdAt',
      'version',
      'graceDeadline',
      'dueAt',
      'leftBy',
      'teardownAt',
      'billingStoppedAt',
      'tornDownAt',
      'closeRequestedAt',
      'firstPaidAt',
      'moneyBack',
    ]);
    if (item.dueAt !== undefined) {
      const { due } = await listDueTenants(FAR, 1000);
      expect(due).toContainEqual({
        tenantId,
        dueAt: item.dueAt,
        reconcileFailures: Number(item.reconcileFailures ?? 0),
      });
    }
  },
  slug: async (item) => {
    expect(await tenantIdOfSlug(str(item, 'slug'))).toBe(item.tenantId);
  },
  identity: async (item, all) => {
    const [, provider = '', subject = ''] = str(item, 'PK').split('#');
    const user = all.find((other) => other.entity === 'user' && other.item.userId === item.userId)?.item;
    if (!user) throw new Error(`no user ${String(item.userId)} in the fixture`);
    const member = all.find(
      (other) =>
        other.entity === 'member' &&
        other.item.userId === item.userId &&
        other.item.tenantId === item.tenantId,
    )?.item;
    // A returning sign-in finds the identity's user (and its membership) and creates nothing.
    const signedIn = await signInIdentity(
      {
        provider,
        subject,
        login: str(user, 'login'),
        ...(typeof user.email === 'string' ? { email: user.email } : {}),
      },
      new Date(str(user, 'createdAt')),
    );
    expect(signedIn).toEqual({
      userId: item.userId,
      tenantId: item.tenantId,
      role: member?.role,
      created: false,
    });
  },
  user: async (item) => {
    comesThrough(await getUser(str(item, 'userId')), item, ['userId', 'tenantId', 'login', 'email']);
  },
  member: async (item, all) => {
    const tenantId = str(item, 'tenantId');
    comesThrough(await getMembership(tenantId, str(item, 'userId')), item, ['tenantId', 'userId', 'role']);
    const email = all.find((other) => other.entity === 'user' && other.item.userId === item.userId)?.item
      .email;
    if (item.role === 'administrator' && typeof email === 'string')
      expect(await administratorEmails(tenantId)).toContain(email);
  },
  session: async (item) => {
    comesThrough(await getSession(part(str(item, 'PK'), 1)), item, [
      'userId',
      'tenantId',
      'createdAt',
      'expiresAt',
      'revokedAt',
    ]);
  },
  oauthState: async (item) => {
    comesThrough(await consumeOAuthState(part(str(item, 'PK'), 1)), item, [
      'codeVerifier',
      'redirectUri',
      'createdAt',
      'expiresAt',
    ]);
  },
  capacity: async (item) => {
    const { slots } = await listInventory(str(item, 'region'));
    const slot = slots.find((read) => read.location === item.location && read.plan === item.plan);
    comesThrough(slot, item, ['region', 'location', 'plan', 'total', 'used']);
  },
  reservation: async (item) => {
    const { reservations } = await listInventory(str(item, 'region'));
    const reservation = reservations.find((read) => read.tenantId === item.tenantId);
    comesThrough(reservation, item, ['tenantId', 'region', 'location', 'plan', 'expiresAt']);
  },
  waitlistWatch: async (item) => {
    const watch = await readWaitlistWatch();
    expect(watch).toEqual({
      joins: Number(item.joins ?? 0),
      regions: asRead(item.regions ?? new Set()),
      checkedJoins: item.checkedJoins === undefined ? undefined : Number(item.checkedJoins),
      placeable: item.placeable ?? {},
      checkedAt: item.checkedAt,
    });
  },
  billing: async (item) => {
    const tenantId = str(item, 'tenantId');
    comesThrough(await getBilling(tenantId), item, [
      'tenantId',
      'customerId',
      'subscriptionId',
      'subscriptionIds',
      'duplicates',
      'checkout',
    ]);
    if (typeof item.customerId === 'string') expect(await tenantOfCustomer(item.customerId)).toBe(tenantId);
  },
  waitlist: async (item) => {
    const tenantId = str(item, 'tenantId');
    const entry = (await tenantWaitlist(tenantId)).find((read) => read.plan === item.plan);
    comesThrough(entry, item, ['tenantId', 'plan', 'region', 'joinedAt', 'joinedBy', 'notifiedAt']);
    const waiting = (await listWaitingEntries()).entries.find(
      (read) => read.tenantId === tenantId && read.plan === item.plan,
    );
    // Waiting until notified: a notified entry has left the waiting index.
    if (item.notifiedAt === undefined) comesThrough(waiting, item, ['tenantId', 'plan', 'joinedAt']);
    else expect(waiting).toBeUndefined();
  },
  history: async (item) => {
    const tenantId = part(str(item, 'PK'), 1);
    const entry = (await listHistory(tenantId)).find(
      (read) => read.at === item.at && read.from === item.from && read.to === item.to,
    );
    comesThrough(entry, item, ['at', 'from', 'to', 'reason']);
  },
  stack: async (item) => {
    const tenantId = str(item, 'tenantId');
    const stackId = str(item, 'stackId');
    const fields = [
      'stackId',
      'name',
      'plan',
      'location',
      'resources',
      'runCap',
      'reserveCap',
      'watchedProjectsCap',
      'lifecycle',
      'createdAt',
      'teardownAt',
      'admissionOpenUntilTeardown',
      'tornDownAt',
      'region',
      'placed',
      'desiredVersion',
      'observed',
      'operation',
      'openChange',
      'runningExport',
      'dispatcherCredentialHash',
      'projectCount',
      'billedPriceId',
      'priceLock',
      'priceMove',
    ];
    comesThrough(await getStack(tenantId, stackId), item, fields);
    comesThrough(
      (await listStacks(tenantId)).find((read) => read.stackId === stackId),
      item,
      fields,
    );
  },
  itemLease: async (item) => {
    const lease = await readItemLease(str(item, 'tenantId'));
    // The journal is read as a list (stored as a map by owner): compared entry by entry below.
    const { entries: _journal, ...holding } = lease ?? { entries: [] };
    comesThrough(lease && holding, item, ['holder', 'leaseUntil']);
    const byOwner = (entries: { owner: string }[]) =>
      [...entries].sort((a, b) => a.owner.localeCompare(b.owner));
    const stored = Object.values((item.entries ?? {}) as Record<string, { owner: string }>);
    expect(byOwner(stored)).toHaveLength(lease?.entries.length ?? -1);
    expect(byOwner(stored)).toMatchObject(byOwner(lease?.entries ?? []));
  },
  processorSlot: async (item) => {
    const account = part(str(item, 'PK'), 1);
    const window = Number(part(str(item, 'PK'), 2));
    const used = Number(item.used);
    // The window's stored count is what a claim is measured against: full at `used` places, one more free at `used + 1`.
    expect(await claimProcessorPlace(account, window, used, Number(item.ttl))).toBe(false);
    expect(await claimProcessorPlace(account, window, used + 1, Number(item.ttl))).toBe(true);
  },
  sweepNudge: async (item) => {
    expect(await lastSweepNudge()).toEqual(new Date(str(item, 'nudgedAt')));
  },
  sweepLease: async (item) => {
    const leaseUntil = str(item, 'leaseUntil');
    const before = new Date(Date.parse(leaseUntil) - 1000);
    expect(await takeSweepLease('another-sweep', before, new Date(Date.parse(leaseUntil) + 60_000))).toEqual({
      busyUntil: leaseUntil,
    });
  },
  processorEvent: async (item) => {
    // An event already applied is recognised as such, and applied no second time.
    const facts = {
      eventId: part(str(item, 'PK'), 1),
      type: str(item, 'eventType'),
      tenantId: undefined,
      subscriptionId: undefined,
    };
    expect(await applyEventOnce(facts, new Date(str(item, 'receivedAt')))).toBe('duplicate');
  },
  outbox: async (item) => {
    const key = str(item, 'key');
    comesThrough(await getEmail(key), item, [
      'key',
      'to',
      'subject',
      'text',
      'html',
      'status',
      'attempts',
      'attemptLimit',
      'createdAt',
      'lastError',
      'GSI2SK',
      'failedAt',
    ]);
    const pending = (await listPendingEmails(FAR, 1000)).emails.map((email) => email.key);
    const troubled = await listTroubledEmails();
    if (item.status === 'pending' || item.status === 'sending') expect(pending).toContain(key);
    else expect(pending).not.toContain(key);
    if (item.status === 'failed') expect(troubled.failed.map((email) => email.key)).toContain(key);
  },
  dispatcherCredential: async (item) => {
    comesThrough(await findDispatcherCredential(part(str(item, 'PK'), 1)), item, [
      'tenantId',
      'stackId',
      'credentialId',
      'issuedAt',
      'retiresAt',
    ]);
  },
  project: async (item) => {
    const tenantId = part(str(item, 'PK'), 1);
    const fields = ['projectId', 'stackId', 'name', 'repository', 'registeredAt', 'credentialRoutes'];
    comesThrough(await getProject(tenantId, str(item, 'stackId'), str(item, 'projectId')), item, fields);
    comesThrough(
      (await listProjects(tenantId, str(item, 'stackId'))).find((read) => read.projectId === item.projectId),
      item,
      fields,
    );
  },
  projectRepository: async (item) => {
    const tenantId = part(str(item, 'PK'), 1);
    const stackId = part(str(item, 'SK'), 1);
    const project = await getProject(tenantId, stackId, str(item, 'projectId'));
    if (!project) throw new Error(`the claim names project ${String(item.projectId)}, which does not read`);
    // The claim holds the repository: another Project of it is refused, one of another repository is not.
    const other = { ...project, projectId: `prj_${randomUUID().slice(0, 8)}`, credentialRoutes: {} };
    expect(await registerProject(tenantId, other, 1000)).toBe(false);
    const elsewhere = { ...other, repository: `${project.repository}-elsewhere` };
    expect(await registerProject(tenantId, elsewhere, 1000)).toBe(true);
    expect(await removeProject(tenantId, elsewhere)).toBe(true);
  },
  idempotency: async (item) => {
    const tenantId = part(str(item, 'PK'), 1);
    const key = str(item, 'SK').slice('IDEMPOTENCY#'.length);
    const claiming = claimIdempotencyKey(
      tenantId,
      key,
      str(item, 'fingerprint'),
      new Date(str(item, 'createdAt')),
    );
    if (item.state === 'done')
      expect(await claiming).toEqual({ claimed: false, status: item.status, result: item.result });
    else await expect(claiming).rejects.toMatchObject({ code: 'request_in_progress' });
  },
  planChange: async (item) => {
    const tenantId = str(item, 'tenantId');
    const changeId = str(item, 'changeId');
    const fields = [
      'changeId',
      'tenantId',
      'stackId',
      'fromPlan',
      'toPlan',
      'status',
      'step',
      'confirmedAt',
      'expiresAt',
      'updatedAt',
      'requestedBy',
      'region',
      'fromLocation',
      'targetLocation',
      'history',
      'estimate',
      'final',
      'stepStartedAt',
      'stepVersion',
      'reasonCode',
      'dispatcherReason',
      'outcome',
      'healthyAt',
      'addressChanged',
      'billingItems',
      'commitAttempts',
      'version',
    ];
    const change = await getPlanChange(tenantId, changeId);
    comesThrough(change, item, fields);
    comesThrough(
      (await listPlanChanges(tenantId, str(item, 'stackId'))).find((read) => read.changeId === changeId),
      item,
      fields,
    );
    const open = (await scanOpenPlanChanges()).map((read) => read.changeId);
    if (change && !isTerminal(change.status)) expect(open).toContain(changeId);
    else expect(open).not.toContain(changeId);
    const owed = (await listStartsOwed(FAR, 1000)).owed.map((read) => read.changeId);
    if (item.GSI2PK !== undefined) expect(owed).toContain(changeId);
    else expect(owed).not.toContain(changeId);
  },
  credential: async (item) => {
    const tenantId = part(str(item, 'PK'), 1);
    const fields = [
      'stackId',
      'name',
      'provider',
      'kind',
      'profile',
      'consent',
      'sealed',
      'materialVersion',
      'validation',
      'createdAt',
      'rotatedAt',
      'archivedAt',
      'deletion',
      'version',
    ];
    comesThrough(await getCredential(tenantId, str(item, 'stackId'), str(item, 'name')), item, fields);
    comesThrough(
      (await listCredentials(tenantId, str(item, 'stackId'))).find((read) => read.name === item.name),
      item,
      fields,
    );
  },
  guideSelection: async (item) => {
    const tenantId = part(str(item, 'PK'), 1);
    const stackId = part(str(item, 'SK'), 1);
    comesThrough(await getGuideSelection(tenantId, stackId), item, ['name', 'selectedAt', 'cleared']);
  },
  thread: async (item) => {
    const tenantId = part(str(item, 'PK'), 1);
    comesThrough(await getThread(tenantId, str(item, 'stackId'), str(item, 'threadId')), item, [
      'threadId',
      'stackId',
      'projectId',
      'activity',
      'credentialName',
      'position',
      'model',
      'effort',
      'createdAt',
    ]);
  },
  stackExport: async (item) => {
    const tenantId = str(item, 'tenantId');
    const stackId = str(item, 'stackId');
    const fields = [
      'exportId',
      'stackId',
      'status',
      'requestedAt',
      'requestedBy',
      'readyAt',
      'failedAt',
      'sizeBytes',
      'failureCode',
      'dispatcherReason',
      'failureReason',
      'objectKey',
      'uploadId',
    ];
    comesThrough(await getExport(tenantId, stackId, str(item, 'exportId')), item, fields);
    comesThrough(
      (await listRecentExports(tenantId, stackId, 100)).find((read) => read.exportId === item.exportId),
      item,
      fields,
    );
  },
};

describe('the fixture of old items covers the store', () => {
  const files = generations.flatMap((generation) => generation.files);

  it('has items of every entity the store keys (functions/store/keys.ts)', () => {
    const covered = new Set(files.filter((file) => file.items.length > 0).map((file) => file.entity));
    expect(storeEntities().filter((entity) => !covered.has(entity))).toEqual([]);
  });

  it('has items of every `type` the store’s builders write', () => {
    const written = new Set(
      files.flatMap((file) => file.items.map((entry) => attribute(entry.item, 'type'))),
    );
    const types = storeTypeValues();
    expect(types.length).toBeGreaterThan(20);
    expect(types.filter((type) => !written.has(type))).toEqual([]);
  });

  it('files every item under the entity its key belongs to, with the date and commit it was written at', () => {
    for (const file of files) {
      expect(file.writtenAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
      expect(file.commit).toMatch(/^[0-9a-f]{40}$/);
      for (const { item } of file.items)
        expect(entityOf(attribute(item, 'PK'), attribute(item, 'SK')), JSON.stringify(item)).toBe(
          file.entity,
        );
    }
  });

  it('has a reader for every entity', () => {
    expect(Object.keys(READERS).sort()).toEqual(storeEntities());
  });
});

const attribute = (item: Record<string, unknown>, name: string): string => {
  const value = item[name] as { S?: unknown } | undefined;
  return typeof value?.S === 'string' ? value.S : '';
};

/** Loads a generation's items into `table`, as they were stored (DynamoDB's own JSON). */
const load = async (client: DynamoDBClient, table: string, files: FixtureFile[]) => {
  const items = files.flatMap((file) =>
    file.items.map((entry) => entry.item as Record<string, AttributeValue>),
  );
  for (let start = 0; start < items.length; start += 25) {
    let writes: Record<string, { PutRequest: { Item: Record<string, AttributeValue> } }[]> | undefined = {
      [table]: items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } })),
    };
    while (writes && Object.keys(writes).length > 0) {
      const answer = await client.send(new BatchWriteItemCommand({ RequestItems: writes }));
      writes = answer.UnprocessedItems as typeof writes;
    }
  }
  return items.length;
};

describe.each(generations)('items written $generation', ({ files }) => {
  const table = `old-items-${randomUUID().slice(0, 8)}`;
  const client = new DynamoDBClient({});
  const previousTable = process.env.TABLE_NAME;
  let stored: { entity: string; item: Item }[] = [];

  beforeAll(async () => {
    await ensureTable(process.env.AWS_ENDPOINT_URL_DYNAMODB ?? '', table);
    const count = await load(client, table, files);
    // The items as the table gives them back, read with the store's own document client.
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await db().send(new ScanCommand({ TableName: table, ExclusiveStartKey: startKey }));
      for (const item of page.Items ?? [])
        stored.push({ entity: entityOf(String(item.PK), String(item.SK)), item });
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    expect(stored).toHaveLength(count);
    process.env.TABLE_NAME = table;
  });

  afterAll(async () => {
    process.env.TABLE_NAME = previousTable;
    stored = [];
    try {
      await client.send(new DeleteTableCommand({ TableName: table }));
    } finally {
      client.destroy();
    }
  });

  it.each(storeEntities())('%s items read through today’s store', async (entity) => {
    const reader = READERS[entity];
    if (!reader) throw new Error(`no reader for ${entity}`);
    const items = stored.filter((entry) => entry.entity === entity);
    for (const { item } of items) {
      const state = files
        .find((file) => file.entity === entity)
        ?.items.find(
          (entry) => attribute(entry.item, 'PK') === item.PK && attribute(entry.item, 'SK') === item.SK,
        )?.state;
      try {
        await reader(item, stored);
      } catch (error) {
        // The reads of a list (a tenant's Plan Changes, say) parse the item's neighbours too.
        throw new Error(
          `reading ${entity} item "${state}" (${String(item.PK)} / ${String(item.SK)}) through today’s store failed: ${String(error)}`,
          {
            cause: error,
          },
        );
      }
    }
  });
});
