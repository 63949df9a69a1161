/** Key builders for the single table. Every PK/SK in the code base is made here. */

export interface Key {
  PK: string;
  SK: string;
}

export const keys = {
  tenant: (tenantId: string): Key => ({ PK: `TENANT#${tenantId}`, SK: 'TENANT' }),
  member: (tenantId: string, userId: string): Key => ({ PK: `TENANT#${tenantId}`, SK: `MEMBER#${userId}` }),
  user: (userId: string): Key => ({ PK: `USER#${userId}`, SK: 'USER' }),
  /** A code-host identity (provider + the provider's stable subject id) belongs to one user. */
  identity: (provider: string, subject: string): Key => ({
    PK: `IDENTITY#${provider}#${subject}`,
    SK: 'IDENTITY',
  }),
  /** Sessions are found by the SHA-256 of their token; the token itself is never stored. */
  session: (tokenHash: string): Key => ({ PK: `SESSION#${tokenHash}`, SK: 'SESSION' }),
  /** A slug belongs to one tenant forever: this item is its claim. */
  slug: (slug: string): Key => ({ PK: `SLUG#${slug}`, SK: 'SLUG' }),
  /** A pending OAuth sign-in, found by the SHA-256 of its `state`. */
  oauthState: (stateHash: string): Key => ({ PK: `OAUTH_STATE#${stateHash}`, SK: 'OAUTH_STATE' }),
  capacityRegion: (region: string): Pick<Key, 'PK'> => ({ PK: `CAPACITY#${region}` }),
  /** What the sweep last saw of the waitlist: joins counted, placeable Plans per region (one item). */
  waitlistWatch: (): Key => ({ PK: 'WAITLIST#WATCH', SK: 'WAITLIST#WATCH' }),
  /** A tenant's capacity reservation for its open first checkout (at most one per tenant). */
  reservation: (region: string, tenantId: string): Key => ({
    PK: `CAPACITY#${region}`,
    SK: `RESERVATION#${tenantId}`,
  }),
  /** The tenant's processor references and open checkout. */
  billing: (tenantId: string): Key => ({ PK: `TENANT#${tenantId}`, SK: 'BILLING' }),
  /** A tenant's explicit wish to be told when a Plan can be placed. */
  waitlist: (tenantId: string, plan: string): Key => ({ PK: `TENANT#${tenantId}`, SK: `WAITLIST#${plan}` }),
  /** A tenant-visible lifecycle transition. */
  history: (tenantId: string, at: string, sequence: number): Key => ({
    PK: `TENANT#${tenantId}`,
    SK: `HISTORY#${at}#${String(sequence).padStart(2, '0')}`,
  }),
  stack: (tenantId: string, stackId: string): Key => ({ PK: `TENANT#${tenantId}`, SK: `STACK#${stackId}` }),
  /** The tenant's subscription-items lease and its journal of item changes (one item per tenant). */
  itemLease: (tenantId: string): Key => ({ PK: `TENANT#${tenantId}`, SK: 'ITEM_LEASE#subscription' }),
  /**
   * One window of the processor account's call budget (functions/ports/rate-limit.ts): its counter
   * of the calls that took a place in it. One item per window, so claims spread over partitions.
   */
  processorSlot: (account: string, window: number): Key => ({
    PK: `PROCESSOR_BUDGET#${account}#${window}`,
    SK: 'WINDOW',
  }),
  /** When a webhook last woke the sweep (nudges coalesce within a short window). */
  sweepNudge: (): Key => ({ PK: 'SWEEP', SK: 'NUDGE' }),
  /** The reconciler sweep's lease: one sweep at a time in the whole deployment. */
  sweepLease: (): Key => ({ PK: 'SWEEP', SK: 'LEASE' }),
  /** A processor event applied once (kept 35 days). */
  processorEvent: (eventId: string): Key => ({ PK: `EVENT#${eventId}`, SK: 'EVENT' }),
  /** One email, sent at most once per key. */
  outbox: (key: string): Key => ({ PK: `OUTBOX#${key}`, SK: 'OUTBOX' }),
  /** A Stack's Dispatcher credential, found by the SHA-256 of its secret (the secret is never stored). */
  dispatcherCredential: (secretHash: string): Key => ({ PK: `DISPATCHER#${secretHash}`, SK: 'DISPATCHER' }),
  /** A Project registered on a Stack. */
  project: (tenantId: string, stackId: string, projectId: string): Key => ({
    PK: `TENANT#${tenantId}`,
    SK: `PROJECT#${stackId}#${projectId}`,
  }),
  projectPrefix: (stackId: string) => `PROJECT#${stackId}#`,
  /** Claims a repository on a Stack, so that it is registered once. */
  projectRepository: (tenantId: string, stackId: string, repository: string): Key => ({
    PK: `TENANT#${tenantId}`,
    SK: `PROJECT_REPOSITORY#${stackId}#${repository.toLowerCase()}`,
  }),
  /** A tenant's write request by its Idempotency-Key header (kept a day). */
  idempotency: (tenantId: string, key: string): Key => ({
    PK: `TENANT#${tenantId}`,
    SK: `IDEMPOTENCY#${key}`,
  }),
  /** A Plan Change of one of the tenant's Stacks (its id sorts by confirmation time). */
  planChange: (tenantId: string, changeId: string): Key => ({
    PK: `TENANT#${tenantId}`,
    SK: `PLANCHANGE#${changeId}`,
  }),
  planChangePrefix: 'PLANCHANGE#',
  /** A Credential of one of the tenant's Stacks, by its name. */
  credential: (tenantId: string, stackId: string, name: string): Key => ({
    PK: `TENANT#${tenantId}`,
    SK: `CREDENTIAL#${stackId}#${name}`,
  }),
  credentialPrefix: (stackId: string) => `CREDENTIAL#${stackId}#`,
  /** A Stack's Guide Credential selection (and why it was last cleared). */
  guideSelection: (tenantId: string, stackId: string): Key => ({
    PK: `TENANT#${tenantId}`,
    SK: `GUIDE#${stackId}`,
  }),
  /** A Thread's binding to a Credential, model and effort (made once, when the Thread is created). */
  thread: (tenantId: string, stackId: string, threadId: string): Key => ({
    PK: `TENANT#${tenantId}`,
    SK: `THREAD#${stackId}#${threadId}`,
  }),
  threadPrefix: (stackId: string) => `THREAD#${stackId}#`,
  /** An export archive of one of the tenant's Stacks (its id sorts by the request time). */
  stackExport: (tenantId: string, stackId: string, exportId: string): Key => ({
    PK: `TENANT#${tenantId}`,
    SK: `EXPORT#${stackId}#${exportId}`,
  }),
  stackExportPrefix: (stackId: string) => `EXPORT#${stackId}#`,
  /** GSI1 key that finds a tenant's billing record from its processor customer id. */
  customerIndex: (customerId: string) => ({ GSI1PK: `CUSTOMER#${customerId}`, GSI1SK: 'BILLING' }),
  /** Prefix of a tenant's waitlist entries (SK). */
  waitlistPrefix: 'WAITLIST#',
  capacity: (region: string, location: string, plan: string): Key => ({
    PK: `CAPACITY#${region}`,
    SK: `LOCATION#${location}#PLAN#${plan}`,
  }),
};
