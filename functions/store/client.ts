import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '#ports/config.ts';

let documentClient: DynamoDBDocumentClient | undefined;

/**
 * The DynamoDB document client. Region, credentials and endpoint come from the standard AWS
 * environment (locally AWS_ENDPOINT_URL_DYNAMODB points at DynamoDB Local).
 */
export const db = (): DynamoDBDocumentClient => {
  documentClient ??= DynamoDBDocumentClient.from(new DynamoDBClient({}), {
    marshallOptions: { removeUndefinedValues: true },
  });
  return documentClient;
};

export const tableName = (): string => config.tableName();

/** True when a TransactWrite was cancelled because one of its conditions failed. */
export const isConditionFailure = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false;
  if (error.name === 'ConditionalCheckFailedException') return true;
  if (error.name !== 'TransactionCanceledException') return false;
  const reasons = (error as Error & { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
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
