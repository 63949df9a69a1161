import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { appliedUnlessConditionFails, db } from './client.ts';

/**
 * DynamoDB transactions of the store: the one type of a transaction's write, which every store
 * module builds, and the one way to apply a list of them (all or nothing).
 */

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Applies writes built here (a new Stack, its place, the request's record) in one transaction. */
export const applyStackWrites = (writes: TransactItem[]): Promise<boolean> =>
  appliedUnlessConditionFails(db().send(new TransactWriteCommand({ TransactItems: writes })));
