import type { IndexName } from '../functions/store/table.ts';

/**
 * What a function may do on the single table: the DynamoDB actions its code sends and the indexes
 * it queries, declared beside each function (lib/routes.ts, lib/plan-change-tasks.ts,
 * AUTHORIZER_TABLE_ACCESS, RECONCILER_TABLE_ACCESS) and granted exactly by the CDK app
 * (lib/infra/constructs/lambda.ts, grantTable). test/infra/least-privilege.test.ts reads each
 * function's bundle and fails when a declaration differs from what the code does; the matrix of
 * docs/permissions.md is generated from the synthesized template and checked by the same test.
 *
 * A transaction (TransactWriteItems) is authorized per item: its Puts, Updates, Deletes and
 * ConditionChecks need PutItem, UpdateItem, DeleteItem and ConditionCheckItem.
 */
export type TableAction =
  | 'GetItem'
  | 'Query'
  | 'Scan'
  | 'BatchGetItem'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'ConditionCheckItem'
  | 'BatchWriteItem';

export interface TableAccess {
  /** Granted on the table. */
  actions: readonly TableAction[];
  /** Indexes queried: `dynamodb:Query` on each one's ARN (never `index/*`). */
  indexes?: readonly IndexName[];
  /**
   * The only partitions the actions may touch (`dynamodb:LeadingKeys`): a function that keeps one
   * item of its own (the webhook's nudge window) cannot reach any tenant's items.
   */
  leadingKeys?: readonly string[];
}

/** The actions that change nothing: a function with only these is read-only. */
export const READ_ACTIONS: ReadonlySet<TableAction> = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem']);

export const isReadOnly = (access: TableAccess): boolean =>
  access.actions.every((action) => READ_ACTIONS.has(action));

/** No table access at all. */
export const NO_TABLE: TableAccess = { actions: [] };

/** The session authorizer: reads a session (or a Dispatcher credential) and the membership. */
export const AUTHORIZER_TABLE_ACCESS: TableAccess = { actions: ['GetItem'] };

/**
 * The reconciler sweep: the only writer of billing state; it finds what is due on GSI2 and
 * processor objects on GSI1.
 */
export const RECONCILER_TABLE_ACCESS: TableAccess = {
  actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'],
  indexes: ['GSI1', 'GSI2'],
};
