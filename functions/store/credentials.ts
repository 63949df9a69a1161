import { PutCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { ACTIVITIES, CREDENTIAL_KINDS, EFFORTS, PROVIDERS } from '#core/credentials.ts';
import { VALIDATION_FAILURES } from '#core/tenant-reasons.ts';
import { db, deleteIf, prefixPages, putIf, tableName, updateIf } from './client.ts';
import { createPut, entity, getOne, listAll } from './entity.ts';
import { stackCounterWrite } from './stacks.ts';
import type { TransactItem } from './transact.ts';

const ProfileEntrySchema = v.object({
  model: v.optional(v.string()),
  effort: v.optional(v.picklist(EFFORTS)),
});
export const RuntimeProfileSchema = v.object(
  Object.fromEntries(ACTIVITIES.map((activity) => [activity, v.optional(ProfileEntrySchema)])) as Record<
    (typeof ACTIVITIES)[number],
    v.OptionalSchema<typeof ProfileEntrySchema, undefined>
  >,
);

const SealedSchema = v.object({
  keyCiphertext: v.string(),
  iv: v.string(),
  tag: v.string(),
  ciphertext: v.string(),
});

const CredentialSchema = v.object({
  stackId: v.string(),
  name: v.string(),
  provider: v.picklist(PROVIDERS),
  kind: v.picklist(CREDENTIAL_KINDS),
  profile: v.optional(RuntimeProfileSchema, {}),
  /** The administrator's consent (kinds that spend a personal subscription). */
  consent: v.nullable(
    v.object({ userId: v.string(), login: v.string(), at: v.string(), textVersion: v.string() }),
  ),
  /** The envelope-encrypted material (absent for `ambient`, which stores no authentication value). */
  sealed: v.optional(SealedSchema),
  /** Goes up at every provisioning: a validation or a Thread names the version it saw. */
  materialVersion: v.number(),
  validation: v.object({
    state: v.picklist(['pending', 'valid', 'invalid']),
    /** Why it is invalid, as the tenant is told (a code of ours). */
    reasonCode: v.optional(v.picklist(VALIDATION_FAILURES)),
    /**
     * The Dispatcher's own words with an invalid verdict: for operators only, never shown (a
     * verdict stored before the codes kept them as `reason`, which is no longer read).
     */
    dispatcherReason: v.optional(v.string()),
    checkedAt: v.optional(v.string()),
  }),
  createdAt: v.string(),
  rotatedAt: v.optional(v.string()),
  archivedAt: v.optional(v.string()),
  /** A deletion waiting for its confirmation: the SHA-256 of the token, and what it confirms. */
  deletion: v.optional(v.object({ tokenHash: v.string(), threadCount: v.number(), expiresAt: v.string() })),
  version: v.number(),
});
export type StoredCredential = v.InferOutput<typeof CredentialSchema>;
export type SealedMaterial = v.InferOutput<typeof SealedSchema>;

/** A Credential of one of the tenant's Stacks, by its name. */
export const credential = entity({
  type: 'credential',
  key: (tenantId: string, stackId: string, name: string) => ({
    PK: `TENANT#${tenantId}`,
    SK: `CREDENTIAL#${stackId}#${name}`,
  }),
  schema: CredentialSchema,
  collection: (tenantId: string, stackId: string) => ({
    PK: `TENANT#${tenantId}`,
    prefix: `CREDENTIAL#${stackId}#`,
  }),
});

export const getCredential = (
  tenantId: string,
  stackId: string,
  name: string,
): Promise<StoredCredential | undefined> => getOne(credential, tenantId, stackId, name);

export const listCredentials = (tenantId: string, stackId: string): Promise<StoredCredential[]> =>
  listAll(credential, tenantId, stackId);

/**
 * The write that stores a Credential as provisioned or rotated: a new one only if the name is
 * free, a rotation only if the record is still the version read (so two rotations never interleave).
 */
export const credentialPutWrite = (
  tenantId: string,
  stored: StoredCredential,
  readVersion: number | undefined,
): TransactItem => ({
  Put: {
    TableName: tableName(),
    Item: credential.item([tenantId, stored.stackId, stored.name], stored),
    ConditionExpression: readVersion === undefined ? 'attribute_not_exists(PK)' : '#version = :read',
    ...(readVersion === undefined
      ? {}
      : {
          ExpressionAttributeNames: { '#version': 'version' },
          ExpressionAttributeValues: { ':read': readVersion },
        }),
  },
});

/** Bumps the Stack's desired-state version (a Credential to validate is part of what it publishes). */
export const desiredStateBumpWrite = (tenantId: string, stackId: string): TransactItem =>
  stackCounterWrite(tenantId, stackId, 'ADD desiredVersion :one', 'attribute_exists(PK)');

/** Changes fields of a Credential, only if it is still the version read. */
export const updateCredential = async (
  tenantId: string,
  read: StoredCredential,
  fields: Partial<Omit<StoredCredential, 'stackId' | 'name' | 'version'>>,
  remove: (keyof StoredCredential)[] = [],
): Promise<boolean> => {
  const names: Record<string, string> = { '#version': 'version' };
  const values: Record<string, unknown> = { ':read': read.version, ':next': read.version + 1 };
  const sets = ['#version = :next'];
  for (const [index, [name, value]] of Object.entries(fields).entries()) {
    if (value === undefined) continue;
    names[`#f${index}`] = name;
    values[`:f${index}`] = value;
    sets.push(`#f${index} = :f${index}`);
  }
  const removes = remove.map((name, index) => {
    names[`#r${index}`] = name;
    return `#r${index}`;
  });
  return updateIf({
    Key: credential.key(tenantId, read.stackId, read.name),
    UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
    ConditionExpression: 'attribute_exists(PK) AND #version = :read',
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  });
};

/** Deletes a Credential, only if it is still the version read. */
export const deleteCredential = async (tenantId: string, read: StoredCredential): Promise<boolean> =>
  deleteIf({
    Key: credential.key(tenantId, read.stackId, read.name),
    ConditionExpression: '#version = :read',
    ExpressionAttributeNames: { '#version': 'version' },
    ExpressionAttributeValues: { ':read': read.version },
  });

const GuideSchema = v.object({
  /** The selected Credential's name, or absent when none is selected. */
  name: v.optional(v.string()),
  selectedAt: v.optional(v.string()),
  /** The last time a selection was cleared: which Credential, why and when. */
  cleared: v.optional(v.object({ name: v.string(), reason: v.string(), at: v.string() })),
});
export type GuideSelection = v.InferOutput<typeof GuideSchema>;

/** A Stack's Guide Credential selection (and why it was last cleared). */
export const guideSelection = entity({
  type: 'guide_selection',
  key: (tenantId: string, stackId: string) => ({ PK: `TENANT#${tenantId}`, SK: `GUIDE#${stackId}` }),
  schema: GuideSchema,
});

export const getGuideSelection = async (tenantId: string, stackId: string): Promise<GuideSelection> =>
  (await getOne(guideSelection, tenantId, stackId)) ?? {};

export const selectGuide = async (
  tenantId: string,
  stackId: string,
  name: string,
  now: Date,
): Promise<void> => {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: guideSelection.item([tenantId, stackId], { name, selectedAt: now.toISOString() }),
    }),
  );
};

/** The put that clears the selection if it still names `name`, keeping why. */
const guideClearPut = (tenantId: string, stackId: string, name: string, reason: string, now: Date) => ({
  TableName: tableName(),
  Item: guideSelection.item([tenantId, stackId], { cleared: { name, reason, at: now.toISOString() } }),
  ConditionExpression: '#name = :name',
  ExpressionAttributeNames: { '#name': 'name' },
  ExpressionAttributeValues: { ':name': name },
});

/** Clears the selection if it still names `name`, keeping why; false when it named another (or none). */
export const clearGuide = async (
  tenantId: string,
  stackId: string,
  name: string,
  reason: string,
  now: Date,
): Promise<boolean> => putIf(guideClearPut(tenantId, stackId, name, reason, now));

/**
 * The writes that clear every selection of these Stacks that names a Credential, keeping why, for a
 * transaction of the caller's (the sweep's transition that makes the subscription policy disable
 * the tenant's Credentials). Each is conditioned on the name read: a selection changed meanwhile
 * fails the transaction, and the caller decides again.
 */
export const guideClearWrites = async (
  tenantId: string,
  stackIds: readonly string[],
  reason: string,
  now: Date,
): Promise<TransactItem[]> => {
  const writes: TransactItem[] = [];
  for (const stackId of stackIds) {
    const { name } = await getGuideSelection(tenantId, stackId);
    if (name !== undefined) writes.push({ Put: guideClearPut(tenantId, stackId, name, reason, now) });
  }
  return writes;
};

const ThreadSchema = v.object({
  threadId: v.string(),
  stackId: v.string(),
  projectId: v.optional(v.string()),
  activity: v.picklist(ACTIVITIES),
  credentialName: v.string(),
  position: v.picklist(['primary', 'fallback', 'guide']),
  model: v.string(),
  effort: v.picklist(EFFORTS),
  createdAt: v.string(),
});
export type ThreadBinding = v.InferOutput<typeof ThreadSchema>;

/** A Thread's binding to a Credential, model and effort (made once, when the Thread is created). */
export const thread = entity({
  type: 'thread',
  key: (tenantId: string, stackId: string, threadId: string) => ({
    PK: `TENANT#${tenantId}`,
    SK: `THREAD#${stackId}#${threadId}`,
  }),
  schema: ThreadSchema,
  collection: (tenantId: string, stackId: string) => ({
    PK: `TENANT#${tenantId}`,
    prefix: `THREAD#${stackId}#`,
  }),
});

/** Binds a Thread for good: the first binding of a Thread id wins. */
export const bindThread = async (tenantId: string, binding: ThreadBinding): Promise<boolean> =>
  putIf(createPut(thread, [tenantId, binding.stackId, binding.threadId], binding).Put);

export const getThread = (
  tenantId: string,
  stackId: string,
  threadId: string,
): Promise<ThreadBinding | undefined> => getOne(thread, tenantId, stackId, threadId);

/** How many Threads of the Stack are bound to the Credential (they become non-resumable if it goes). */
export const countThreadsBoundTo = async (
  tenantId: string,
  stackId: string,
  name: string,
): Promise<number> => {
  let count = 0;
  const threads = thread.collection(tenantId, stackId);
  for await (const page of prefixPages(threads.PK, threads.prefix, {
    filter: 'credentialName = :name',
    values: { ':name': name },
    count: true,
  }))
    count += page.Count ?? 0;
  return count;
};
