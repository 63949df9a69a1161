/**
 * THE table definition. The CDK construct (lib/infra/constructs/table.ts) and the local control plane
 * (lib/local/dynamodb.ts) both build the table from this object; nothing else describes it.
 */
export const TABLE_DEFINITION = {
  partitionKey: 'PK',
  sortKey: 'SK',
  timeToLiveAttribute: 'ttl',
  /** Sparse indexes with generic names: an item appears only when it carries the index's keys. */
  globalSecondaryIndexes: [
    /** Lookups by an alternate key (e.g. a tenant's slug, a processor object). */
    { indexName: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' },
    /** The "due" index: what a sweep must look at, sharded by due time. */
    { indexName: 'GSI2', partitionKey: 'GSI2PK', sortKey: 'GSI2SK' },
  ],
} as const;

export type IndexName = (typeof TABLE_DEFINITION.globalSecondaryIndexes)[number]['indexName'];
