import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { transactIf } from './client.ts';

/**
 * DynamoDB transactions of the store: the type of one write of a transaction, which every store
 * module builds (a Stack, its capacity place, the request's record, an outbox email, ...), and
 * the one way to apply a list of them.
 */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Applies writes built by the store modules in one transaction: all of them, or none (false). */
export const applyStackWrites = (writes: TransactItem[]): Promise<boolean> => transactIf(writes);
