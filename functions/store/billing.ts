import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { PLAN_VALUES, type PlanValue } from '#core/plans.ts';
import { db, deleteIf, tableName, updateIf } from './client.ts';
import { entity, getOne } from './entity.ts';

/** An in-flight claim older than this is taken to have crashed and may be replaced. */
export const STALE_CLAIM_MS = 60_000;

const CheckoutAttemptSchema = v.object({
  attemptId: v.string(),
  plan: v.picklist(PLAN_VALUES),
  state: v.picklist(['creating', 'open']),
  startedAt: v.string(),
  expiresAt: v.string(),
  sessionId: v.optional(v.string()),
  url: v.optional(v.string()),
});

const DuplicateSchema = v.object({
  handledAt: v.string(),
  refundedAmount: v.number(),
  refunds: v.number(),
  reason: v.string(),
});

const BillingSchema = v.object({
  tenantId: v.string(),
  customerId: v.optional(v.string()),
  /** The tenant's one subscription: the first one paid. */
  subscriptionId: v.optional(v.string()),
  /** Every subscription id ever seen for the customer (a string set). */
  subscriptionIds: v.optional(
    v.pipe(
      v.union([v.set(v.string()), v.array(v.string())]),
      v.transform((ids) => [...ids].sort()),
    ),
    [],
  ),
  /** Extra live subscriptions found and ended (two tabs paid): id -> what was done and why. Internal only. */
  duplicates: v.optional(v.record(v.string(), DuplicateSchema), {}),
  checkout: v.optional(CheckoutAttemptSchema),
});
export type Billing = v.InferOutput<typeof BillingSchema>;

/** The tenant's processor references and open checkout (one item per tenant). */
export const billing = entity({
  type: 'billing',
  key: (tenantId: string) => ({ PK: `TENANT#${tenantId}`, SK: 'BILLING' }),
  schema: BillingSchema,
  indexes: {
    /** GSI1: finds a tenant's billing record from its processor customer id. */
    customer: (customerId: string) => ({ GSI1PK: `CUSTOMER#${customerId}`, GSI1SK: 'BILLING' }),
  },
});

/** The tenant's processor references and its open first checkout, if any. */
export const getBilling = (tenantId: string): Promise<Billing | undefined> => getOne(billing, tenantId);

/**
 * Claims the tenant's one checkout attempt. Succeeds when there is none, when the current one
 * has expired or is a crashed claim, or when it is `replacing` (the tenant chose another Plan).
 */
export const claimCheckout = async (
  tenantId: string,
  attempt: { attemptId: string; plan: PlanValue; expiresAt: Date },
  now: Date,
  replacing: string | undefined,
): Promise<boolean> => {
  return updateIf({
    Key: billing.key(tenantId),
    UpdateExpression: 'SET #type = :type, tenantId = :tenantId, checkout = :attempt',
    ConditionExpression:
      'attribute_not_exists(checkout) OR checkout.expiresAt <= :now OR checkout.attemptId = :replacing OR (checkout.#state = :creating AND checkout.startedAt < :stale)',
    ExpressionAttributeNames: { '#type': 'type', '#state': 'state' },
    ExpressionAttributeValues: {
      ':type': 'billing',
      ':tenantId': tenantId,
      ':attempt': {
        attemptId: attempt.attemptId,
        plan: attempt.plan,
        state: 'creating',
        startedAt: now.toISOString(),
        expiresAt: attempt.expiresAt.toISOString(),
      },
      ':now': now.toISOString(),
      ':replacing': replacing ?? '-',
      ':creating': 'creating',
      ':stale': new Date(now.getTime() - STALE_CLAIM_MS).toISOString(),
    },
  });
};

export const recordCheckoutSession = async (
  tenantId: string,
  attemptId: string,
  session: { id: string; url: string },
): Promise<void> => {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: billing.key(tenantId),
      UpdateExpression: 'SET checkout.sessionId = :id, checkout.#url = :url, checkout.#state = :open',
      ConditionExpression: 'checkout.attemptId = :attemptId',
      ExpressionAttributeNames: { '#url': 'url', '#state': 'state' },
      ExpressionAttributeValues: {
        ':id': session.id,
        ':url': session.url,
        ':open': 'open',
        ':attemptId': attemptId,
      },
    }),
  );
};

/** Gives up a checkout attempt; a billing record left with nothing else in it is removed. */
export const clearCheckout = async (tenantId: string, attemptId: string): Promise<void> => {
  const removed = await deleteIf({
    Key: billing.key(tenantId),
    ConditionExpression:
      'checkout.attemptId = :attemptId AND attribute_not_exists(customerId) AND attribute_not_exists(subscriptionId)',
    ExpressionAttributeValues: { ':attemptId': attemptId },
  });
  if (removed) return;
  await updateIf({
    Key: billing.key(tenantId),
    UpdateExpression: 'REMOVE checkout',
    ConditionExpression: 'checkout.attemptId = :attemptId',
    ExpressionAttributeValues: { ':attemptId': attemptId },
  });
};

/**
 * The billing item of a tenant that subscribed (customer and its one subscription, with the index
 * key that finds the tenant from a customer id): what checkout and the sweep leave behind, for
 * bulk seeding (the scale bench writes it with BatchWriteItem).
 */
export const subscribedBillingItem = (tenantId: string, customerId: string, subscriptionId: string) =>
  billing.item([tenantId], {
    ...billing.index.customer(customerId),
    tenantId,
    customerId,
    subscriptionId,
    subscriptionIds: new Set([subscriptionId]),
  });

/**
 * Records the tenant's processor customer, once (a customer id never changes), with the index key
 * that finds the tenant from an event that carries only the customer id.
 */
export const recordCustomer = async (tenantId: string, customerId: string): Promise<void> => {
  const index = billing.index.customer(customerId);
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: billing.key(tenantId),
      UpdateExpression:
        'SET #type = :type, tenantId = :tenantId, customerId = if_not_exists(customerId, :customerId), GSI1PK = if_not_exists(GSI1PK, :pk), GSI1SK = :sk',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: {
        ':type': 'billing',
        ':tenantId': tenantId,
        ':customerId': customerId,
        ':pk': index.GSI1PK,
        ':sk': index.GSI1SK,
      },
    }),
  );
};

/**
 * Remembers every subscription seen for the tenant's customer; the first one becomes the
 * tenant's subscription when it has none yet.
 */
export const recordSubscriptionsSeen = async (
  tenantId: string,
  subscriptionIds: string[],
  primary: string | undefined,
): Promise<void> => {
  if (subscriptionIds.length === 0) return;
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: billing.key(tenantId),
      UpdateExpression: `ADD subscriptionIds :ids${primary ? ' SET subscriptionId = if_not_exists(subscriptionId, :primary)' : ''}`,
      ExpressionAttributeValues: {
        ':ids': new Set(subscriptionIds),
        ...(primary ? { ':primary': primary } : {}),
      },
    }),
  );
};

/** Records that an extra live subscription was ended and refunded, and why (internal). */
export const recordDuplicateHandled = async (
  tenantId: string,
  subscriptionId: string,
  outcome: { handledAt: string; refundedAmount: number; refunds: number; reason: string },
): Promise<void> => {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: billing.key(tenantId),
      UpdateExpression: 'SET duplicates = if_not_exists(duplicates, :empty)',
      ExpressionAttributeValues: { ':empty': {} },
    }),
  );
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: billing.key(tenantId),
      UpdateExpression: 'SET duplicates.#sub = :outcome',
      ExpressionAttributeNames: { '#sub': subscriptionId },
      ExpressionAttributeValues: { ':outcome': outcome },
    }),
  );
};
