import { randomUUID } from 'node:crypto';
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { ROLES, type Role } from '#core/sessions.ts';
import { db, isConditionFailure, tableName } from './client.ts';
import { keys } from './keys.ts';
import { newTenantItem } from './tenants.ts';

const UserSchema = v.object({
  userId: v.string(),
  /** The person's current tenant (a returning customer's new account once started). */
  tenantId: v.string(),
  login: v.string(),
  email: v.optional(v.string()),
  /** The person's earlier tenants, oldest first (each left and torn down). */
  formerTenantIds: v.optional(v.array(v.string())),
});
export type User = v.InferOutput<typeof UserSchema>;

const IdentitySchema = v.object({ userId: v.string(), tenantId: v.string() });
const MemberSchema = v.object({
  tenantId: v.string(),
  userId: v.string(),
  role: v.picklist(ROLES),
  /** The person started a new account since: the membership only lets them read the old one's billing. */
  formerAt: v.optional(v.string()),
});
export type Membership = v.InferOutput<typeof MemberSchema>;

export interface CodeHostIdentity {
  /** `github`, or `local` for the local sign-in shortcut. */
  provider: string;
  /** The code host's stable id for the account (not the login, which can be renamed). */
  subject: string;
  login: string;
  email?: string | undefined;
}

export interface SignedInUser {
  userId: string;
  tenantId: string;
  role: Role;
  created: boolean;
}

const findIdentity = async (identity: CodeHostIdentity) => {
  const { Item } = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: keys.identity(identity.provider, identity.subject),
      ConsistentRead: true,
    }),
  );
  return Item ? v.parse(IdentitySchema, Item) : undefined;
};

export const getUser = async (userId: string): Promise<User | undefined> => {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.user(userId), ConsistentRead: true }),
  );
  return Item ? v.parse(UserSchema, Item) : undefined;
};

export const getMembership = async (tenantId: string, userId: string): Promise<Membership | undefined> => {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.member(tenantId, userId), ConsistentRead: true }),
  );
  return Item ? v.parse(MemberSchema, Item) : undefined;
};

/** The three items of a new user: its code-host identity, its profile and its membership. */
export const newUserItems = (
  identity: CodeHostIdentity,
  user: { userId: string; tenantId: string; role: Role },
  createdAt: string,
): Record<string, unknown>[] => [
  {
    ...keys.identity(identity.provider, identity.subject),
    type: 'identity',
    userId: user.userId,
    tenantId: user.tenantId,
  },
  {
    ...keys.user(user.userId),
    type: 'user',
    userId: user.userId,
    tenantId: user.tenantId,
    provider: identity.provider,
    login: identity.login,
    email: identity.email,
    createdAt,
  },
  {
    ...keys.member(user.tenantId, user.userId),
    type: 'member',
    tenantId: user.tenantId,
    userId: user.userId,
    role: user.role,
    createdAt,
  },
];

/** The same items as conditional puts: a user is created once. */
const newUserPuts = (
  identity: CodeHostIdentity,
  user: { userId: string; tenantId: string; role: Role },
  createdAt: string,
) =>
  newUserItems(identity, user, createdAt).map((Item) => ({
    Put: { TableName: tableName(), Item, ConditionExpression: 'attribute_not_exists(PK)' },
  }));

/** Logins can be renamed and addresses change on the code host: keep the latest. */
const refreshProfile = async (userId: string, identity: CodeHostIdentity) => {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.user(userId),
      UpdateExpression:
        identity.email === undefined ? 'SET login = :login' : 'SET login = :login, email = :email',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: {
        ':login': identity.login,
        ...(identity.email === undefined ? {} : { ':email': identity.email }),
      },
    }),
  );
};

/**
 * Finds the user of a code-host identity, or creates on first sign-in the user together with a
 * new tenant in `provisioning` whose administrator the user is. One transaction: two racing
 * first sign-ins of one identity create exactly one user and one tenant.
 */
export const signInIdentity = async (identity: CodeHostIdentity, now: Date): Promise<SignedInUser> => {
  const found = await findIdentity(identity);
  if (found) {
    // The user item names the person's current tenant (a new account moves it; the identity
    // keeps the tenant of the first sign-in).
    const existing = {
      userId: found.userId,
      tenantId: (await getUser(found.userId))?.tenantId ?? found.tenantId,
    };
    const membership = await getMembership(existing.tenantId, existing.userId);
    if (!membership) throw new Error(`user ${existing.userId} has no membership in its tenant`);
    await refreshProfile(existing.userId, identity);
    return { ...existing, role: membership.role, created: false };
  }
  const userId = randomUUID();
  const tenantId = randomUUID();
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          ...newUserPuts(identity, { userId, tenantId, role: 'administrator' }, now.toISOString()),
          {
            Put: {
              TableName: tableName(),
              Item: newTenantItem(tenantId, now),
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
        ],
      }),
    );
    return { userId, tenantId, role: 'administrator', created: true };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    // Lost a race with a concurrent first sign-in of the same identity: use the winner's user.
    const winner = await findIdentity(identity);
    if (!winner) throw error;
    return signInIdentity(identity, now);
  }
};

/**
 * Adds a member (not an administrator) to a tenant: a new user for a code-host identity that has
 * none yet. Returns undefined when the identity already belongs to a user.
 */
export const addMember = async (
  tenantId: string,
  identity: CodeHostIdentity,
  now: Date,
): Promise<{ userId: string } | undefined> => {
  const userId = randomUUID();
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          ...newUserPuts(identity, { userId, tenantId, role: 'member' }, now.toISOString()),
          {
            ConditionCheck: {
              TableName: tableName(),
              Key: keys.tenant(tenantId),
              ConditionExpression: 'attribute_exists(PK)',
            },
          },
        ],
      }),
    );
    return { userId };
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
};
