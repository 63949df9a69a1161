import { AttributeType, BillingMode, ProjectionType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { TABLE_DEFINITION } from '../../../functions/store/table.ts';
import { pinStateful } from '../stateful.ts';

const stringKey = (name: string) => ({ name, type: AttributeType.STRING });

/**
 * The single table, built from functions/store/table.ts (the same definition the local run uses).
 * Kept when the stack is deleted or the table would be replaced, deleted only when the deploy that
 * created it is rolled back (lib/infra/stateful.ts). No deletion protection: it would fail that
 * rollback (the retry would then leave a second table behind); an accidental DeleteTable is
 * recoverable instead, from the backup DynamoDB keeps 35 days for a table with point-in-time
 * recovery.
 */
export class ControlPlaneTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.table = new Table(this, 'Table', {
      partitionKey: stringKey(TABLE_DEFINITION.partitionKey),
      sortKey: stringKey(TABLE_DEFINITION.sortKey),
      billingMode: BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: TABLE_DEFINITION.timeToLiveAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    });
    pinStateful(this.table, 'table', { keepsData: true });
    for (const index of TABLE_DEFINITION.globalSecondaryIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: stringKey(index.partitionKey),
        sortKey: stringKey(index.sortKey),
        projectionType: ProjectionType.ALL,
      });
    }
  }
}
