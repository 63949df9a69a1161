import path from 'node:path';
import { build } from 'esbuild';
import { REPO_ROOT } from '../../lib/constants.ts';
import { EXTERNAL_MODULES, MAIN_FIELDS, NODE_TARGET } from '../../lib/infra/bundling.ts';

/**
 * What a function's code does on the table, read from its bundle as esbuild builds it for Lambda
 * (lib/infra/bundling.ts; unminified, so our modules' code stays readable): only code the handler
 * can reach is in it (esbuild drops what nothing imports or calls). Each DynamoDB request our
 * store modules build names its IAM action: GetCommand (GetItem), QueryCommand (Query; on an
 * index when it names IndexName), ScanCommand (Scan), PutCommand and a transaction's `Put`
 * (PutItem), UpdateCommand / `Update` (UpdateItem), DeleteCommand / `Delete` (DeleteItem),
 * `ConditionCheck` (ConditionCheckItem). Batch requests: BatchGetItem, BatchWriteItem.
 */
export interface TableUsage {
  /** IAM actions on the table, sorted. */
  actions: string[];
  /** Indexes queried, sorted. */
  indexes: string[];
  /** The secrets read (their variable names: `secretValue('PROCESSOR_API_KEY')`), sorted. */
  secrets: string[];
  /** KMS actions its code asks for (functions/ports/secrets-vault.ts: GenerateDataKey to seal, Decrypt to open), sorted. */
  kms: string[];
}

/** The KMS requests our code builds, by the IAM action each needs. */
const KMS_PATTERNS: [RegExp, string][] = [
  [/new GenerateDataKeyCommand\d*\(/, 'kms:GenerateDataKey'],
  [/new DecryptCommand\d*\(/, 'kms:Decrypt'],
  [/new EncryptCommand\d*\(/, 'kms:Encrypt'],
];

/** The variable names of the secrets a function may read (functions/ports/secrets.ts). */
const SECRET_VARIABLES =
  /\("(PROCESSOR_API_KEY|PROCESSOR_WEBHOOK_SECRET|CODE_HOST_CLIENT_SECRET|EXPORTS_SIGNING_KEY)"\)/g;

const PATTERNS: [RegExp, string][] = [
  [/new GetCommand\d*\(/, 'dynamodb:GetItem'],
  [/new QueryCommand\d*\(/, 'dynamodb:Query'],
  [/new ScanCommand\d*\(/, 'dynamodb:Scan'],
  [/new PutCommand\d*\(|\bPut: /, 'dynamodb:PutItem'],
  [/new UpdateCommand\d*\(|\bUpdate: /, 'dynamodb:UpdateItem'],
  [/new DeleteCommand\d*\(|\bDelete: /, 'dynamodb:DeleteItem'],
  [/\bConditionCheck: /, 'dynamodb:ConditionCheckItem'],
  [/new BatchGetCommand\d*\(/, 'dynamodb:BatchGetItem'],
  [/new BatchWriteCommand\d*\(/, 'dynamodb:BatchWriteItem'],
];

/** Our own modules' code in an unminified esbuild bundle: each starts with a `// <path>` line. */
const ownCode = (bundle: string): string =>
  bundle
    .split(/^(?=\/\/ \S+\.[cm]?[jt]s$)/m)
    .filter((section) => /^\/\/ (functions|lib)\//.test(section))
    .join('\n');

/** The table usage of each entry (a module exporting `handler`, relative to the repository root). */
export const tableUsage = async (entries: readonly string[]): Promise<Map<string, TableUsage>> => {
  const result = await build({
    entryPoints: Object.fromEntries(
      entries.map((entry, index) => [`f${index}`, path.join(REPO_ROOT, entry)]),
    ),
    absWorkingDir: REPO_ROOT,
    bundle: true,
    write: false,
    outdir: '/tmp/table-usage',
    platform: 'node',
    format: 'esm',
    target: NODE_TARGET,
    mainFields: MAIN_FIELDS,
    external: EXTERNAL_MODULES,
    minify: false,
    treeShaking: true,
    logLevel: 'silent',
  });
  const usage = new Map<string, TableUsage>();
  entries.forEach((entry, index) => {
    const file = result.outputFiles.find((output) => path.basename(output.path) === `f${index}.js`);
    if (!file) throw new Error(`no bundle for ${entry}`);
    const code = ownCode(file.text);
    const actions = PATTERNS.filter(([pattern]) => pattern.test(code)).map(([, action]) => action);
    // An index named by anything but a literal cannot be read here: say so rather than guess.
    const named = [...code.matchAll(/IndexName: ([^,}\n]+)/g)].map((m) => m[1]?.trim() ?? '');
    const indexes = named.map((value) => /^"([A-Za-z0-9_.-]+)"$/.exec(value)?.[1]);
    if (indexes.some((index) => index === undefined))
      throw new Error(`${entry}: an IndexName that is not a string literal (${named.join(', ')})`);
    const secrets = [...code.matchAll(SECRET_VARIABLES)].map((m) => m[1] ?? '');
    usage.set(entry, {
      actions: actions.sort(),
      indexes: [...new Set(indexes as string[])].sort(),
      secrets: [...new Set(secrets)].sort(),
      kms: KMS_PATTERNS.filter(([pattern]) => pattern.test(code))
        .map(([, action]) => action)
        .sort(),
    });
  });
  return usage;
};
