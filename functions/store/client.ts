import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DeleteCommandInput,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  type PutCommandInput,
  QueryCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { RetryableFault } from '#core/refusals/common.ts';
import { config } from '#ports/config.ts';
import { recordDependencyFault } from '#ports/metrics.ts';
import { traced } from '#ports/tracer.ts';

let documentClient: DynamoDBDocumentClient | undefined;

/**
 * The DynamoDB document client. Region, credentials and endpoint come from the standard AWS
 * environment (locally AWS_ENDPOINT_URL_DYNAMODB points at DynamoDB Local).
 */
export const db = (): DynamoDBDocumentClient => {
  if (!documentClient) {
    const client = traced(new DynamoDBClient({}));
    // Every throttled attempt and transaction conflict is counted (the SDK retries throttling;
    // callers retry or park conflicts), before the error goes on.
    client.middlewareStack.add(
      (next) => async (args) => {
        try {
          return await next(args);
        } catch (error) {
          const fault = tableFaultOf(error);
          if (fault) recordDependencyFault(fault);
          throw error;
        }
      },
      { step: 'deserialize', name: 'countTableFaults' },
    );
    documentClient = DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true },
    });
  }
  return documentClient;
};

export const tableName = (): string => config.tableName();

type SdkError = Error & { CancellationReasons?: { Code?: string }[] };

/**
 * The one reading of a DynamoDB error as a fault a retry clears: throttling (what is left after
 * the SDK's own retries) or a transaction cancelled because another transaction held one of its
 * items. A cancelled transaction or a throttled write applies nothing, so the caller may send the
 * request again. Counted as metrics by `db()`; answered 503 with Retry-After at the HTTP edge.
 */
export const tableFaultOf = (error: unknown): RetryableFault | undefined => {
  if (!(error instanceof Error)) return undefined;
  if (
    error.name === 'ProvisionedThroughputExceededException' ||
    error.name === 'ThrottlingException' ||
    error.name === 'RequestLimitExceeded'
  )
    return 'table_throttled';
  if (error.name !== 'TransactionCanceledException') return undefined;
  const reasons = (error as SdkError).CancellationReasons ?? [];
  // A failed condition is an answer (a refusal of the use case), never a fault to retry.
  if (reasons.some((reason) => reason.Code === 'ConditionalCheckFailed')) return undefined;
  if (reasons.some((reason) => reason.Code === 'TransactionConflict')) return 'table_transaction_conflict';
  if (reasons.some((reason) => reason.Code === 'ThrottlingError')) return 'table_throttled';
  return undefined;
};

/** True when a TransactWrite was cancelled because one of its conditions failed. */
const isConditionFailure = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false;
  if (error.name === 'ConditionalCheckFailedException') return true;
  if (error.name !== 'TransactionCanceledException') return false;
  const reasons = (error as SdkError).CancellationReasons ?? [];
  return reasons.some((reason) => reason.Code === 'ConditionalCheckFailed');
};

/**
 * THE conditional write: its answer when it was applied, undefined when its condition (or a
 * condition of its transaction) did not hold. Any other failure is thrown.
 */
export const unlessConditionFails = async <T>(write: Promise<T>): Promise<T | undefined> => {
  try {
    return await write;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
};

/** A conditional write: true when it was applied, false when its condition did not hold. */
const appliedUnlessConditionFails = async (write: Promise<unknown>): Promise<boolean> =>
  (await unlessConditionFails(write.then(() => true))) ?? false;

/**
 * A transaction whose refusal the caller reads: undefined when it applied, else the positions of
 * the writes whose condition failed (which write refused says why). Any other failure is thrown.
 */
export const transactOrRefusals = async (
  items: TransactWriteCommandInput['TransactItems'],
): Promise<number[] | undefined> => {
  try {
    await db().send(new TransactWriteCommand({ TransactItems: items }));
    return undefined;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const reasons = (error as SdkError).CancellationReasons ?? [];
    return reasons.flatMap((reason, index) => (reason.Code === 'ConditionalCheckFailed' ? [index] : []));
  }
};

/** The conditional writes of the table, each true when applied and false when its condition failed. */
type OnTheTable<T> = Omit<T, 'TableName'>;
export const putIf = (input: OnTheTable<PutCommandInput>): Promise<boolean> =>
  appliedUnlessConditionFails(db().send(new PutCommand({ TableName: tableName(), ...input })));
export const updateIf = (input: OnTheTable<UpdateCommandInput>): Promise<boolean> =>
  appliedUnlessConditionFails(db().send(new UpdateCommand({ TableName: tableName(), ...input })));
export const deleteIf = (input: OnTheTable<DeleteCommandInput>): Promise<boolean> =>
  appliedUnlessConditionFails(db().send(new DeleteCommand({ TableName: tableName(), ...input })));
/** A transaction that applies whole or not at all: false when one of its conditions failed. */
export const transactIf = (items: TransactWriteCommandInput['TransactItems']): Promise<boolean> =>
  appliedUnlessConditionFails(db().send(new TransactWriteCommand({ TransactItems: items })));

/**
 * One item by its key, parsed with `schema`; undefined when there is none. Read consistently,
 * unless the caller only polls (`consistent: false`, half the read units).
 */
export const getItem = async <T extends v.GenericSchema>(
  key: { PK: string; SK: string },
  schema: T,
  options: { consistent?: boolean } = {},
): Promise<v.InferOutput<T> | undefined> => {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: options.consistent ?? true }),
  );
  return Item ? v.parse(schema, Item) : undefined;
};

/**
 * Each page of a consistent query of one partition's items whose sort key starts with `prefix`;
 * `filter` narrows them (its values beside), `count` asks for counts only.
 */
export async function* prefixPages(
  pk: string,
  prefix: string,
  more: { filter?: string; values?: Record<string, unknown>; count?: boolean } = {},
) {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ...(more.filter ? { FilterExpression: more.filter } : {}),
        ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix, ...more.values },
        ...(more.count ? { Select: 'COUNT' as const } : {}),
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    yield page;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}

/** Every item of one partition whose sort key starts with `prefix`, page after page, parsed with `schema`. */
export const queryPrefix = async <T extends v.GenericSchema>(
  pk: string,
  prefix: string,
  schema: T,
): Promise<v.InferOutput<T>[]> => {
  const items: v.InferOutput<T>[] = [];
  for await (const page of prefixPages(pk, prefix))
    for (const item of page.Items ?? []) items.push(v.parse(schema, item));
  return items;
};
