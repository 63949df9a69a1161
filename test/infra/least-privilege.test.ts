import { beforeAll, describe, expect, it } from 'vitest';
import { MATERIAL_CONTEXT_KEYS } from '#core/credentials.ts';
import { CREDENTIALS_KEY_ACTION, SEAL_OPEN_CONDITIONS } from '../../lib/infra/constructs/credentials-key.ts';
import { RECONCILER_HANDLER } from '../../lib/infra/constructs/reconciler.ts';
import { documentedMatrix, permissionRows, renderMatrix } from '../../lib/infra/permissions-matrix.ts';
import { PLAN_CHANGE_TASKS } from '../../lib/plan-change-tasks.ts';
import { AUTHORIZER_HANDLER, routes, type SecretName } from '../../lib/routes.ts';
import {
  AUTHORIZER_TABLE_ACCESS,
  isReadOnly,
  RECONCILER_TABLE_ACCESS,
  type TableAccess,
} from '../../lib/table-access.ts';
import { synthesizedStack } from '../support/synthesized-stack.ts';
import { type TableUsage, tableUsage } from '../support/table-usage.ts';

/**
 * Issue 22, item 7: every function is granted only what its code does. The declarations beside
 * each function (lib/table-access.ts) are checked against its bundle, the template's grants
 * against the declarations, and the matrix of docs/permissions.md against the template.
 */

const { template } = synthesizedStack();
const templates = () => [template.toJSON()];

/** The variable name each secret is read by (functions/ports/secrets.ts). */
const SECRET_VARIABLE: Record<SecretName, string> = {
  codeHostClientSecret: 'CODE_HOST_CLIENT_SECRET',
  processorApiKey: 'PROCESSOR_API_KEY',
  processorWebhookSecret: 'PROCESSOR_WEBHOOK_SECRET',
  exportsSigningKey: 'EXPORTS_SIGNING_KEY',
};

/** Every function of ours: its name in the matrix, its entry, its declared table access. */
const FUNCTIONS: { name: string; entry: string; table: TableAccess; secrets: string[]; kms?: string }[] = [
  ...routes.map((route) => ({
    name: `Api${route.id}`,
    entry: route.handler,
    table: route.table,
    secrets: (route.secrets ?? []).map((secret) => SECRET_VARIABLE[secret]),
    ...(route.usesCredentialsKey ? { kms: CREDENTIALS_KEY_ACTION[route.usesCredentialsKey] } : {}),
  })),
  { name: 'ApiSessionAuthorizer', entry: AUTHORIZER_HANDLER, table: AUTHORIZER_TABLE_ACCESS, secrets: [] },
  {
    name: 'ReconcilerSweep',
    entry: RECONCILER_HANDLER,
    table: RECONCILER_TABLE_ACCESS,
    secrets: ['PROCESSOR_API_KEY'],
  },
  ...PLAN_CHANGE_TASKS.map((task) => ({
    name: `PlanChanges${task.state}`,
    entry: task.entry,
    table: task.table,
    secrets: task.callsProcessor ? ['PROCESSOR_API_KEY'] : [],
  })),
];

const sorted = (values: readonly string[] | undefined) => [...(values ?? [])].sort();

let usage: Map<string, TableUsage>;
beforeAll(async () => {
  usage = await tableUsage(FUNCTIONS.map((fn) => fn.entry));
}, 120_000);

describe('each declaration is what the code does (read from its bundle)', () => {
  it('every function of ours is declared once', () => {
    const names = permissionRows(templates()).map((row) => row.name);
    expect(names.sort()).toEqual(FUNCTIONS.map((fn) => fn.name).sort());
  });

  it.each(FUNCTIONS.map((fn) => [fn.name, fn] as const))('%s: table actions and indexes', (_name, fn) => {
    const found = usage.get(fn.entry);
    expect(found?.actions).toEqual(sorted(fn.table.actions.map((action) => `dynamodb:${action}`)));
    expect(found?.indexes).toEqual(sorted(fn.table.indexes));
  });

  it.each(FUNCTIONS.map((fn) => [fn.name, fn] as const))('%s: the secrets it reads', (_name, fn) => {
    expect(usage.get(fn.entry)?.secrets).toEqual(sorted(fn.secrets));
  });

  it.each(FUNCTIONS.map((fn) => [fn.name, fn] as const))(
    '%s: the KMS action its code uses (seal or open), and nothing more',
    (_name, fn) => {
      expect(usage.get(fn.entry)?.kms).toEqual(fn.kms ? [fn.kms] : []);
    },
  );

  it('of the Plan Change tasks, only those whose code calls the processor read its key (CommitBilling)', () => {
    expect(PLAN_CHANGE_TASKS.filter((task) => task.callsProcessor).map((task) => task.state)).toEqual([
      'CommitBilling',
    ]);
  });
});

describe('the template grants exactly the declarations', () => {
  const rows = () => new Map(permissionRows(templates()).map((row) => [row.name, row]));

  it.each(FUNCTIONS.map((fn) => [fn.name, fn] as const))('%s', (name, fn) => {
    const row = rows().get(name);
    expect(sorted([...(row?.table ?? [])])).toEqual(sorted(fn.table.actions));
    expect(sorted([...(row?.indexes ?? [])])).toEqual(
      sorted((fn.table.indexes ?? []).map((i) => `Query ${i}`)),
    );
    // Nothing else on the table: no wildcard index, no condition-less action on another ARN of it.
    expect([...(row?.other ?? [])].filter((grant) => grant.includes('dynamodb:'))).toEqual([]);
    const secretGrants = [...(row?.other ?? [])].filter((grant) =>
      grant.startsWith('secretsmanager:GetSecretValue'),
    );
    expect(secretGrants).toHaveLength(fn.secrets.length);
  });

  it('no function may Scan or batch-write, and read-only functions have no write action', () => {
    for (const row of permissionRows(templates())) {
      expect([...row.table], row.name).not.toContain('Scan');
      expect([...row.table], row.name).not.toContain('BatchWriteItem');
    }
    const readOnly = FUNCTIONS.filter((fn) => fn.table.actions.length > 0 && isReadOnly(fn.table));
    expect(readOnly.length).toBeGreaterThan(15);
    const byName = new Map(permissionRows(templates()).map((row) => [row.name, row]));
    for (const fn of readOnly)
      expect(
        [...(byName.get(fn.name)?.table ?? [])].filter((a) => /Put|Update|Delete|Write|Condition/.test(a)),
      ).toEqual([]);
  });

  it('KMS is granted only under the encryption context the code sends', () => {
    expect(SEAL_OPEN_CONDITIONS).toEqual({
      'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['tenantId', 'stackId', 'credential'] },
      Null: {
        'kms:EncryptionContext:tenantId': 'false',
        'kms:EncryptionContext:stackId': 'false',
        'kms:EncryptionContext:credential': 'false',
      },
    });
    expect([...MATERIAL_CONTEXT_KEYS]).toEqual(['tenantId', 'stackId', 'credential']);
    const policies = Object.values(template.findResources('AWS::IAM::Policy'));
    const kmsStatements = policies.flatMap((policy) =>
      (
        policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Condition?: unknown }[]
      ).filter((statement) => [statement.Action].flat().some((action) => action.startsWith('kms:'))),
    );
    expect(kmsStatements.length).toBe(routes.filter((route) => route.usesCredentialsKey).length);
    for (const statement of kmsStatements) expect(statement.Condition).toEqual(SEAL_OPEN_CONDITIONS);
    // One action per statement: each route's use, never both.
    for (const statement of kmsStatements) expect([statement.Action].flat()).toHaveLength(1);
  });
});

describe('the matrix in docs/permissions.md', () => {
  it('is the one the template grants (regenerate: node lib/infra/permissions-matrix.ts)', () => {
    expect(documentedMatrix()).toBe(renderMatrix(templates()));
  });

  it('fails when a grant grows: one more action on one function changes it', () => {
    const grown = structuredClone(template.toJSON()) as {
      Resources: Record<
        string,
        { Type: string; Properties: { PolicyDocument?: { Statement: { Action: unknown }[] } } }
      >;
    };
    const [, policy] =
      Object.entries(grown.Resources).find(([id]) => id.startsWith('ApiGetMeServiceRoleDefaultPolicy')) ?? [];
    const statement = policy?.Properties.PolicyDocument?.Statement.find((s) =>
      JSON.stringify(s.Action).includes('dynamodb:GetItem'),
    );
    if (!statement) throw new Error('GetMe has no GetItem grant');
    statement.Action = [[statement.Action].flat(), 'dynamodb:Scan'].flat();
    expect(renderMatrix([grown])).not.toBe(documentedMatrix());
  });
});
