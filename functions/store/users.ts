import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { ROLES, type Role } from '#core/sessions.ts';
import { db, tableName, transactIf } from './client.ts';
import { entity, getOne, listAll } from './entity.ts';
import { newTenantPut, tenant } from './tenants.ts';

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

export const user = entity({
  type: 'user',
  key: (userId: string) => ({ PK: `USER#${userId}`, SK: 'USER' }),
  schema: UserSchema,
});

/** A code-host identity (provider + the provider's stable subject id) belongs to one user. */
export const identity = entity({
  type: 'identity',
  key: (provider: string, subject: string) => ({ PK: `IDENTITY#${provider}#${subject}`, SK: 'IDENTITY' }),
  schema: IdentitySchema,
});

/** A person's membership of a tenant (in the tenant's partition). */
export const member = entity({
  type: 'member',
  key: (tenantId: string, userId: string) => ({ PK: `TENANT#${tenantId}`, SK: `MEMBER#${userId}` }),
  schema: MemberSchema,
  collection: (tenantId: string) => ({ PK: `TENANT#${tenantId}`, prefix: 'MEMBER#' }),
});

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

const findIdentity = (signedIn: CodeHostIdentity) => getOne(identity, signedIn.provider, signedIn.subject);

export const getUser = (userId: string): Promise<User | undefined> => getOne(user, userId);

export const getMembership = (tenantId: string, userId: string): Promise<Membership | undefined> =>
  getOne(member, tenantId, userId);

/** The email addresses of the tenant's administrators (those the code host gave us). */
export const administratorEmails = async (tenantId: string): Promise<string[]> => {
  const emails: string[] = [];
  for (const membership of await listAll(member, tenantId)) {
    if (membership.role !== 'administrator') continue;
    const email = (await getOne(user, membership.userId))?.email;
    if (email !== undefined) emails.push(email);
  }
  return emails;
};

/** The three items of a new user: its code-host identity, its profile and its membership. */
export const newUserItems = (
  signedIn: CodeHostIdentity,
  person: { userId: string; tenantId: string; role: Role },
  createdAt: string,
): Record<string, unknown>[] => [
  identity.item([signedIn.provider, signedIn.subject], { userId: person.userId, tenantId: person.tenantId }),
  user.item([person.userId], {
    userId: person.userId,
    tenantId: person.tenantId,
    provider: signedIn.provider,
    login: signedIn.login,
    email: signedIn.email,
    createdAt,
  }),
  member.item([person.tenantId, person.userId], {
    tenantId: person.tenantId,
    userId: person.userId,
    role: person.role,
    createdAt,
  }),
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
      Key: user.key(userId),
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
  const created = await transactIf([
    ...newUserPuts(identity, { userId, tenantId, role: 'administrator' }, now.toISOString()),
    newTenantPut(tenantId, now),
  ]);
  if (created) return { userId, tenantId, role: 'administrator', created: true };
  // Lost a race with a concurrent first sign-in of the same identity: use the winner's user.
  if (!(await findIdentity(identity)))
    throw new Error('a first sign-in was refused, and no other sign-in of its identity was found');
  return signInIdentity(identity, now);
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
  const added = await transactIf([
    ...newUserPuts(identity, { userId, tenantId, role: 'member' }, now.toISOString()),
    {
      ConditionCheck: {
        TableName: tableName(),
        Key: tenant.key(tenantId),
        ConditionExpression: 'attribute_exists(PK)',
      },
    },
  ]);
  return added ? { userId } : undefined;
};
