import { randomUUID } from 'node:crypto';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { ROLES, type Role } from '#core/sessions.ts';
import { db, isConditionFailure, tableName } from './client.ts';
import { keys } from './keys.ts';
import { newTenantItem } from './tenants.ts';

const IdentitySchema = v.object({ userId: v.string(), tenantId: v.string() });
const MemberSchema = v.object({ tenantId: v.string(), userId: v.string(), role: v.picklist(ROLES) });
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

export const getMembership = async (tenantId: string, userId: string): Promise<Membership | undefined> => {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.member(tenantId, userId), ConsistentRead: true }),
  );
  return Item ? v.parse(MemberSchema, Item) : undefined;
};

/**
 * Finds the user of a code-host identity, or creates on first sign-in the user together with a
 * new tenant in `provisioning` whose administrator the user is. One transaction: two racing
 * first sign-ins of one identity create exactly one user and one tenant.
 */
export const signInIdentity = async (identity: CodeHostIdentity, now: Date): Promise<SignedInUser> => {
  const existing = await findIdentity(identity);
  if (existing) {
    const membership = await getMembership(existing.tenantId, existing.userId);
    if (!membership) throw new Error(`user ${existing.userId} has no membership in its tenant`);
    return { ...existing, role: membership.role, created: false };
  }
  const userId = randomUUID();
  const tenantId = randomUUID();
  const createdAt = now.toISOString();
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName(),
              Item: {
                ...keys.identity(identity.provider, identity.subject),
                type: 'identity',
                userId,
                tenantId,
              },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
          {
            Put: {
              TableName: tableName(),
              Item: {
                ...keys.user(userId),
                type: 'user',
                userId,
                tenantId,
                provider: identity.provider,
                login: identity.login,
                email: identity.email,
                createdAt,
              },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
          {
            Put: {
              TableName: tableName(),
              Item: newTenantItem(tenantId, now),
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
          {
            Put: {
              TableName: tableName(),
              Item: {
                ...keys.member(tenantId, userId),
                type: 'member',
                tenantId,
                userId,
                role: 'administrator',
                createdAt,
              },
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
