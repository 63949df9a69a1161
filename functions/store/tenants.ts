import { createHash } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { BILLING_STATES } from '#core/billing-state.ts';
import { db, tableName, transactIf, unlessConditionFails, updateIf } from './client.ts';
import { createPut, entity, getOne } from './entity.ts';
import type { TransactItem } from './transact.ts';

/** Signup offers only the EU Home Region (spec §2). */
export const SIGNUP_HOME_REGION = 'eu';

/**
 * The tenant's money-back refund: claimed once (`requestedAt`: when support received the email;
 * `startedAt`: when the grant began), then completed (`grantedAt`, what was refunded). A claim
 * without `grantedAt` is a grant under way: a rerun continues it.
 */
const MoneyBackSchema = v.object({
  requestedAt: v.string(),
  startedAt: v.string(),
  email: v.optional(v.string()),
  grantedAt: v.optional(v.string()),
  refundedAmount: v.optional(v.number()),
  refunds: v.optional(v.number()),
  currency: v.optional(v.string()),
});
export type MoneyBackRecord = v.InferOutput<typeof MoneyBackSchema>;

/** What a returning customer's new account carries from the person's earlier one (core/returning.ts). */
const CarriedSchema = v.object({
  previousTenantId: v.string(),
  previousSlug: v.nullable(v.string()),
  subscribedBefore: v.boolean(),
  moneyBack: v.optional(v.object({ slug: v.nullable(v.string()), grantedAt: v.string() })),
});

export const TenantSchema = v.object({
  tenantId: v.string(),
  billingState: v.picklist(BILLING_STATES),
  homeRegion: v.string(),
  slug: v.nullable(v.string()),
  createdAt: v.string(),
  version: v.number(),
  graceDeadline: v.optional(v.nullable(v.string()), null),
  dueAt: v.optional(v.string()),
  /** Leaving: why (the transition's reason) and when the Stacks are torn down. */
  leftBy: v.optional(v.string()),
  teardownAt: v.optional(v.string()),
  /** Leaving: when the processor confirmed that nothing will be billed any more. */
  billingStoppedAt: v.optional(v.string()),
  /** Leaving: when every Stack was torn down and its place given back. */
  tornDownAt: v.optional(v.string()),
  /** A provisioning tenant's administrator asked to close the account (the sweep carries it out). */
  closeRequestedAt: v.optional(v.string()),
  /** When the first invoice above zero was paid, as the sweep read it from the processor (opens the money-back window). */
  firstPaidAt: v.optional(v.string()),
  /** The money-back refund, once claimed. */
  moneyBack: v.optional(MoneyBackSchema),
  /** A returning customer's new account: what it carries from the person's earlier one. */
  returning: v.optional(CarriedSchema),
});
export type Tenant = v.InferOutput<typeof TenantSchema>;

/**
 * The sparse "due" index (GSI2): a tenant is in it only while the sweep owes it a look (an event
 * arrived, or a grace ends). Sharded so that no partition gets hot; an idle sweep reads nothing.
 */
export const DUE_SHARDS = 4;

const shardOf = (tenantId: string): number =>
  (createHash('sha256').update(tenantId).digest()[0] ?? 0) % DUE_SHARDS;

export const tenant = entity({
  type: 'tenant',
  key: (tenantId: string) => ({ PK: `TENANT#${tenantId}`, SK: 'TENANT' }),
  schema: TenantSchema,
  indexes: {
    /** In the due index until `dueAt`, in the shard of its id. */
    due: (tenantId: string, dueAt: string) => ({
      GSI2PK: `DUE#${shardOf(tenantId)}`,
      GSI2SK: `${dueAt}#${tenantId}`,
    }),
    /** One shard's partition of the due index. */
    dueShard: (shard: number) => ({ GSI2PK: `DUE#${shard}` }),
  },
});

/** A slug's claim: a slug belongs to one tenant forever. */
export const slugClaim = entity({
  type: 'slug',
  key: (slug: string) => ({ PK: `SLUG#${slug}`, SK: 'SLUG' }),
  schema: v.object({ slug: v.string(), tenantId: v.string(), lockedAt: v.optional(v.string()) }),
});

/** What a new tenant holds: `provisioning`, in the signup Home Region, no slug yet. */
const newTenant = (tenantId: string, now: Date) => ({
  tenantId,
  billingState: 'provisioning' as const,
  homeRegion: SIGNUP_HOME_REGION,
  slug: null,
  createdAt: now.toISOString(),
  version: 1,
});

export const newTenantItem = (tenantId: string, now: Date) =>
  tenant.item([tenantId], newTenant(tenantId, now));

/** A new tenant as a transaction's Put, once; `more` adds to what it holds (a returning person's slug). */
export const newTenantPut = (tenantId: string, now: Date, more: Record<string, unknown> = {}) =>
  createPut(tenant, [tenantId], { ...newTenant(tenantId, now), ...more });

/**
 * An active tenant's item, due for its daily re-check at `dueAt`: for bulk seeding (the scale
 * bench), as a tenant looks after its checkout, first payment and `stacks` Stacks.
 */
export const activeTenantItem = (params: {
  tenantId: string;
  slug: string;
  createdAt: Date;
  firstPaidAt: string;
  dueAt: string;
  stacks: number;
}) => ({
  ...newTenantItem(params.tenantId, params.createdAt),
  billingState: 'active' as const,
  slug: params.slug,
  firstPaidAt: params.firstPaidAt,
  dueAt: params.dueAt,
  ...tenant.index.due(params.tenantId, params.dueAt),
  lastStackOrdinal: params.stacks,
});

export const getTenant = (tenantId: string): Promise<Tenant | undefined> => getOne(tenant, tenantId);

/**
 * The transaction item that claims a slug for a tenant, for good: it fails when any tenant (this
 * one included) ever held it. Used by a first lock and by a returning person's new account.
 */
export const slugClaimPut = (slug: string, tenantId: string, now: Date) =>
  createPut(slugClaim, [slug], { slug, tenantId, lockedAt: now.toISOString() });

/**
 * Locks a slug for a tenant that has none: one transaction claims the slug (which no other tenant
 * may hold, ever) and sets it on the tenant (which must still have none). Returns false when a
 * condition failed; the caller re-reads the tenant to say why.
 */
export const lockSlug = async (tenantId: string, slug: string, now: Date): Promise<boolean> => {
  return transactIf([
    slugClaimPut(slug, tenantId, now),
    {
      Update: {
        TableName: tableName(),
        Key: tenant.key(tenantId),
        UpdateExpression: 'SET #slug = :slug, slugLockedAt = :now, #version = #version + :one',
        ConditionExpression: 'attribute_exists(PK) AND attribute_type(#slug, :null)',
        ExpressionAttributeNames: { '#slug': 'slug', '#version': 'version' },
        ExpressionAttributeValues: {
          ':slug': slug,
          ':now': now.toISOString(),
          ':one': 1,
          ':null': 'NULL',
        },
      },
    },
  ]);
};

/**
 * Makes the sweep look at the tenant no later than `at` (a due time already earlier is kept).
 * Not a billing-state write: only when to look.
 */
export const lookNoLaterThan = async (tenantId: string, at: string): Promise<void> => {
  const due = tenant.index.due(tenantId, at);
  await updateIf({
    Key: tenant.key(tenantId),
    UpdateExpression: 'SET dueAt = :at, GSI2PK = :pk, GSI2SK = :sk',
    ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(dueAt) OR dueAt > :at)',
    ExpressionAttributeValues: { ':at': at, ':pk': due.GSI2PK, ':sk': due.GSI2SK },
  });
};

/**
 * Records a provisioning tenant's request to close its account, and makes it due now: the sweep
 * moves it to decommissioning. Only while it is still provisioning.
 */
export const requestClose = async (tenantId: string, now: Date): Promise<boolean> => {
  const at = now.toISOString();
  const due = tenant.index.due(tenantId, at);
  return updateIf({
    Key: tenant.key(tenantId),
    UpdateExpression:
      'SET closeRequestedAt = if_not_exists(closeRequestedAt, :at), dueAt = :at, GSI2PK = :pk, GSI2SK = :sk',
    ConditionExpression: 'attribute_exists(PK) AND billingState = :provisioning',
    ExpressionAttributeValues: {
      ':at': at,
      ':pk': due.GSI2PK,
      ':sk': due.GSI2SK,
      ':provisioning': 'provisioning',
    },
  });
};

/**
 * Part of an added Stack's commit: the tenant must still be `active`, and each ordinal is taken
 * once, so two adds at once cannot both commit (nor an add after the tenant started leaving).
 */
export const stackAddedWrite = (tenantId: string, ordinal: number) => ({
  Update: {
    TableName: tableName(),
    Key: tenant.key(tenantId),
    UpdateExpression: 'SET lastStackOrdinal = :ordinal',
    ConditionExpression:
      'billingState = :active AND (attribute_not_exists(lastStackOrdinal) OR lastStackOrdinal < :ordinal)',
    ExpressionAttributeValues: { ':ordinal': ordinal, ':active': 'active' },
  },
});

/** The tenant that holds a slug (its claim item), or undefined when no tenant has it. */
export const tenantIdOfSlug = async (slug: string): Promise<string | undefined> =>
  (await getOne(slugClaim, slug))?.tenantId;

/**
 * Claims the tenant's one money-back refund: written only when there is none yet and the tenant
 * is `active`, or kept when a claim exists that was never completed (a run that stopped
 * part-way: it is continued, keeping its first `requestedAt`). Not a billing-state write. Answers
 * the claim as stored and whether this call made it, or undefined when the condition failed
 * (already granted, or not active).
 */
export const claimMoneyBack = async (
  tenantId: string,
  claim: { requestedAt: string; startedAt: string; email: string },
): Promise<{ record: MoneyBackRecord; continued: boolean } | undefined> => {
  const claimed = await unlessConditionFails(
    db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: tenant.key(tenantId),
        UpdateExpression: 'SET moneyBack = if_not_exists(moneyBack, :claim)',
        // A new claim only while active (the one state a refund is granted from); a claim under
        // way is continued whatever state the tenant has reached since.
        ConditionExpression:
          'attribute_exists(PK) AND ((attribute_not_exists(moneyBack) AND billingState = :active) OR (attribute_exists(moneyBack) AND attribute_not_exists(moneyBack.grantedAt)))',
        ExpressionAttributeValues: { ':claim': claim, ':active': 'active' },
        ReturnValues: 'UPDATED_OLD',
      }),
    ),
  );
  if (!claimed) return undefined;
  const earlier: unknown = claimed.Attributes?.moneyBack;
  return earlier === undefined
    ? { record: claim, continued: false }
    : { record: v.parse(MoneyBackSchema, earlier), continued: true };
};

/**
 * Completes the claimed money-back refund, in one transaction with `email` (its outbox item): the
 * grant record is written once, and so is the email. False when it was completed already.
 */
export const completeMoneyBack = async (
  tenantId: string,
  completion: { grantedAt: string; refundedAmount: number; refunds: number; currency: string },
  email: TransactItem,
): Promise<boolean> =>
  transactIf([
    {
      Update: {
        TableName: tableName(),
        Key: tenant.key(tenantId),
        UpdateExpression:
          'SET moneyBack.grantedAt = :grantedAt, moneyBack.refundedAmount = :amount, moneyBack.refunds = :refunds, moneyBack.currency = :currency',
        ConditionExpression: 'attribute_exists(moneyBack) AND attribute_not_exists(moneyBack.grantedAt)',
        ExpressionAttributeValues: {
          ':grantedAt': completion.grantedAt,
          ':amount': completion.refundedAmount,
          ':refunds': completion.refunds,
          ':currency': completion.currency,
        },
      },
    },
    email,
  ]);
