import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { ControlPlaneApi } from './constructs/api.ts';
import { ControlPlaneTable } from './constructs/table.ts';

/** The whole control plane in one stack. */
export class ControlPlaneStack extends Stack {
  readonly table: ControlPlaneTable;
  readonly api: ControlPlaneApi;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    this.table = new ControlPlaneTable(this, 'Data');
    const environment = { TABLE_NAME: this.table.table.tableName };
    this.api = new ControlPlaneApi(this, 'Api', { table: this.table.table, environment });
  }
}
