import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { TABLE_DEFINITION } from '../../../functions/store/table.ts';

const stringKey = (name: string) => ({ name, type: AttributeType.STRING });

/** The single table, built from functions/store/table.ts (the same definition the local run uses). */
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
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
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
