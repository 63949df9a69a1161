import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import type { RetryableFault } from '#core/refusal.ts';
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
export const isConditionFailure = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false;
  if (error.name === 'ConditionalCheckFailedException') return true;
  if (error.name !== 'TransactionCanceledException') return false;
  const reasons = (error as SdkError).CancellationReasons ?? [];
  return reasons.some((reason) => reason.Code === 'ConditionalCheckFailed');
};

/**
 * Runs a conditional write: true when it was applied, false when its condition (or a condition of
 * its transaction) did not hold. Any other failure is thrown.
 */
export const appliedUnlessConditionFails = async (write: Promise<unknown>): Promise<boolean> => {
  try {
    await write;
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

/** One item by its key (read consistently), parsed with `schema`; undefined when there is none. */
export const getItem = async <T extends v.GenericSchema>(
  key: { PK: string; SK: string },
  schema: T,
): Promise<v.InferOutput<T> | undefined> => {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }),
  );
  return Item ? v.parse(schema, Item) : undefined;
};

/** Every item of one partition whose sort key starts with `prefix`, page after page, parsed with `schema`. */
export const queryPrefix = async <T extends v.GenericSchema>(
  pk: string,
  prefix: string,
  schema: T,
): Promise<v.InferOutput<T>[]> => {
  const items: v.InferOutput<T>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) items.push(v.parse(schema, item));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
};
