import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import type { Context } from 'aws-lambda';
import { REPO_ROOT } from '../../lib/constants.ts';
import { closeServer, listenOn } from '../../lib/local/ports.ts';

/**
 * The Lambda functions of a cloud assembly exactly as CDK packages them, read from the assembly
 * alone (nothing here names a function, a file or a hash): every template of it (the stacks of
 * its manifest and any nested stack template, which the asset manifests list as file assets) and
 * every asset manifest. A function's code is the asset whose published object key is the
 * function's `Code.S3Key`: what `cdk deploy` uploads for it.
 */

/** A template value that is not a plain string (`{ Ref }`, `{ Fn::GetAtt }`, `{ Fn::Join }`, ...). */
export type TemplateValue = string | Record<string, unknown>;

export interface BundledFunction {
  /** The function's logical id in its template. */
  logicalId: string;
  /** The template (file name in the assembly) that holds it. */
  templateFile: string;
  runtime: string;
  /** `index.handler`: the module (relative to the bundle's folder) and its export. */
  handler: string;
  /** The bundle's folder in the assembly: the asset CDK zips and uploads. */
  bundleDirectory: string;
  environment: Record<string, TemplateValue>;
}

export interface AssemblyFunctions {
  functions: BundledFunction[];
  /** `METHOD /path` -> the function behind it, with the route's authorization type. */
  routes: Map<string, { functionId: string; authorization: string }>;
  /** The logical id of the HTTP API's Lambda authorizer. */
  authorizerId: string | undefined;
  /** State machine definition substitution (`FindCapacityFunctionArn`) -> function. */
  taskFunctions: Map<string, string>;
  /** Functions an EventBridge schedule invokes. */
  scheduledFunctions: string[];
}

interface Resource {
  Type: string;
  Properties?: Record<string, unknown>;
}

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;

interface LoadedTemplate {
  resources: Record<string, Resource>;
  parameters: Set<string>;
  outputs: Record<string, { Value: unknown }>;
}

/** A function's place: its template file and logical id. */
type Place = { file: string; id: string };

export const readAssembly = (directory: string): AssemblyFunctions => {
  const manifest = readJson<{
    artifacts?: Record<string, { type: string; properties?: { templateFile?: string; file?: string } }>;
  }>(path.join(directory, 'manifest.json'));
  const artifacts = Object.values(manifest.artifacts ?? {});
  /** Published object key -> the asset's path in the assembly. */
  const assetFiles = new Map<string, string>();
  const templateFiles = new Set<string>();
  for (const artifact of artifacts) {
    if (artifact.type === 'aws:cloudformation:stack' && artifact.properties?.templateFile)
      templateFiles.add(artifact.properties.templateFile);
    if (artifact.type !== 'cdk:asset-manifest' || !artifact.properties?.file) continue;
    const assets = readJson<{
      files?: Record<
        string,
        { source: { path: string }; destinations: Record<string, { objectKey: string }> }
      >;
    }>(path.join(directory, artifact.properties.file));
    for (const asset of Object.values(assets.files ?? {})) {
      for (const destination of Object.values(asset.destinations))
        assetFiles.set(destination.objectKey, asset.source.path);
      // Nested stacks' templates are file assets of their parent.
      if (asset.source.path.endsWith('.template.json')) templateFiles.add(asset.source.path);
    }
  }
  const templates = new Map<string, LoadedTemplate>();
  for (const file of templateFiles) {
    const json = readJson<{
      Resources?: Record<string, Resource>;
      Parameters?: Record<string, unknown>;
      Outputs?: Record<string, { Value: unknown }>;
    }>(path.join(directory, file));
    templates.set(file, {
      resources: json.Resources ?? {},
      parameters: new Set(Object.keys(json.Parameters ?? {})),
      outputs: json.Outputs ?? {},
    });
  }
  /** `file#StackResource` -> the nested template; nested template -> its parent and parameters. */
  const nestedOf = new Map<string, string>();
  const parentOf = new Map<string, { file: string; parameters: Record<string, unknown> }>();
  for (const [file, template] of templates)
    for (const [id, resource] of Object.entries(template.resources)) {
      if (resource.Type !== 'AWS::CloudFormation::Stack') continue;
      const key = /[0-9a-f]{64}\.json/.exec(JSON.stringify(resource.Properties?.TemplateURL))?.[0];
      const nested = key ? assetFiles.get(key) : undefined;
      if (!nested) continue;
      nestedOf.set(`${file}#${id}`, nested);
      parentOf.set(nested, {
        file,
        parameters: (resource.Properties?.Parameters as Record<string, unknown>) ?? {},
      });
    }

  /**
   * The function a value names: its `Fn::GetAtt [id, Arn]` (alone or inside a `Fn::Join`) in the
   * same template, or through a nested stack's parameter or output, as CloudFormation resolves it.
   */
  const resolveFunction = (file: string, value: unknown, depth = 0): Place | undefined => {
    const template = templates.get(file);
    if (!template || depth > 10) return undefined;
    const text = JSON.stringify(value ?? null);
    const getAtt = /"Fn::GetAtt":\["([^"]+)","([^"]+)"\]/.exec(text);
    if (getAtt?.[1] && getAtt[2]) {
      const [, id, attribute] = getAtt;
      const resource = template.resources[id];
      if (resource?.Type === 'AWS::Lambda::Function' && attribute === 'Arn') return { file, id };
      if (resource?.Type === 'AWS::CloudFormation::Stack' && attribute.startsWith('Outputs.')) {
        const nested = nestedOf.get(`${file}#${id}`);
        const output = nested
          ? templates.get(nested)?.outputs[attribute.slice('Outputs.'.length)]
          : undefined;
        return nested && output ? resolveFunction(nested, output.Value, depth + 1) : undefined;
      }
    }
    const parameter = /"Ref":"([^"]+)"/.exec(text)?.[1];
    const parent = parentOf.get(file);
    if (parameter && template.parameters.has(parameter) && parent)
      return resolveFunction(parent.file, parent.parameters[parameter], depth + 1);
    return undefined;
  };

  const places: (Place & { fn: Omit<BundledFunction, 'logicalId'> })[] = [];
  for (const [file, template] of templates)
    for (const [id, resource] of Object.entries(template.resources)) {
      if (resource.Type !== 'AWS::Lambda::Function') continue;
      const properties = resource.Properties ?? {};
      const code = properties.Code as { S3Key?: unknown } | undefined;
      const key = typeof code?.S3Key === 'string' ? code.S3Key : undefined;
      const source = key ? assetFiles.get(key) : undefined;
      if (!source) throw new Error(`${file}: ${id}'s code (${JSON.stringify(code)}) is no asset`);
      places.push({
        file,
        id,
        fn: {
          templateFile: file,
          runtime: String(properties.Runtime),
          handler: String(properties.Handler),
          bundleDirectory: path.join(directory, source),
          environment:
            (properties.Environment as { Variables?: Record<string, TemplateValue> } | undefined)
              ?.Variables ?? {},
        },
      });
    }
  // A function is named by its logical id, or, where two templates use the same id, with its template's.
  const nameOf = (place: Place) =>
    places.filter((other) => other.id === place.id).length > 1 ? `${place.file}#${place.id}` : place.id;
  const named = (place: Place | undefined) => (place ? nameOf(place) : undefined);

  const result: AssemblyFunctions = {
    functions: places.map((place) => ({ ...place.fn, logicalId: nameOf(place) })),
    routes: new Map(),
    authorizerId: undefined,
    taskFunctions: new Map(),
    scheduledFunctions: [],
  };
  for (const [file, template] of templates) {
    const resources = Object.entries(template.resources);
    const integrations = new Map<string, string | undefined>();
    for (const [id, resource] of resources) {
      const properties = resource.Properties ?? {};
      if (resource.Type === 'AWS::ApiGatewayV2::Integration')
        integrations.set(id, named(resolveFunction(file, properties.IntegrationUri)));
      if (resource.Type === 'AWS::ApiGatewayV2::Authorizer')
        result.authorizerId = named(resolveFunction(file, properties.AuthorizerUri));
      if (resource.Type === 'AWS::StepFunctions::StateMachine')
        for (const [name, value] of Object.entries(
          (properties.DefinitionSubstitutions as Record<string, unknown>) ?? {},
        )) {
          const target = named(resolveFunction(file, value));
          if (target) result.taskFunctions.set(name, target);
        }
      if (resource.Type === 'AWS::Events::Rule')
        for (const target of (properties.Targets as { Arn: unknown }[]) ?? []) {
          const scheduled = named(resolveFunction(file, target.Arn));
          if (scheduled) result.scheduledFunctions.push(scheduled);
        }
    }
    for (const [, resource] of resources) {
      if (resource.Type !== 'AWS::ApiGatewayV2::Route') continue;
      const properties = resource.Properties ?? {};
      const integration = /"Ref":"([^"]+)"/.exec(JSON.stringify(properties.Target))?.[1];
      const functionId = integration ? integrations.get(integration) : undefined;
      if (!functionId) throw new Error(`${file}: route ${properties.RouteKey} reaches no function`);
      result.routes.set(String(properties.RouteKey), {
        functionId,
        authorization: String(properties.AuthorizationType),
      });
    }
  }
  return result;
};

/** `nodejs24.x` -> 24. */
export const runtimeNodeMajor = (runtime: string): number | undefined => {
  const match = /^nodejs(\d+)\.x$/.exec(runtime);
  return match?.[1] ? Number(match[1]) : undefined;
};

/**
 * A `node` of the given major version on this machine: the one running the tests, else the
 * `node` package of the repository's dev dependencies (what `npm run`/`npx` put first on PATH).
 */
export const nodeOfMajor = (major: number): { binary: string; version: string } | { found: string[] } => {
  const candidates = [process.execPath, path.join(REPO_ROOT, 'node_modules', '.bin', 'node'), 'node'];
  const found: string[] = [];
  for (const binary of candidates) {
    const run = spawnSync(binary, ['--version'], { encoding: 'utf8' });
    const version = run.stdout?.trim();
    if (run.status !== 0 || !version) continue;
    found.push(`${binary} ${version}`);
    if (version.startsWith(`v${major}.`)) return { binary, version };
  }
  return { found };
};

/**
 * The environment a function gets: its template's variables, where a plain string is kept as
 * deployed and a CloudFormation value (a table's name, a queue's URL, a secret's ARN) is given
 * the local cloud's counterpart by name from `cloudValues`; a value the test does not know fails
 * loudly. Then what Lambda's runtime sets, and `extra` (the stand-ins' endpoints). Nothing of the
 * test process's own environment leaks in but PATH.
 */
export const functionEnvironment = (
  fn: BundledFunction,
  cloudValues: Record<string, string>,
  extra: Record<string, string>,
): Record<string, string> => {
  const variables: Record<string, string> = {};
  for (const [name, value] of Object.entries(fn.environment)) {
    if (typeof value === 'string') variables[name] = value;
    else if (cloudValues[name] !== undefined) variables[name] = cloudValues[name];
    else
      throw new Error(
        `${fn.logicalId}: ${name} is ${JSON.stringify(value)} in the template, and the bundle test gives no local value for it`,
      );
  }
  return {
    PATH: process.env.PATH ?? '',
    AWS_LAMBDA_FUNCTION_NAME: fn.logicalId,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '512',
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_EXECUTION_ENV: `AWS_Lambda_${fn.runtime}`,
    LAMBDA_TASK_ROOT: fn.bundleDirectory,
    _HANDLER: fn.handler,
    TZ: 'UTC',
    ...extra,
    ...variables,
  };
};

const WORKER = path.join(REPO_ROOT, 'test', 'support', 'lambda-bundle-worker.mjs');

type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void };

/**
 * One function's bundle loaded in a process of its own, as a Lambda instance: started with the
 * function's environment, the bundle imported once (its init), then invocations one at a time.
 */
export class BundleInstance {
  readonly fn: BundledFunction;
  private readonly child: ChildProcess;
  private readonly pending = new Map<string, Pending>();
  private output = '';
  /** Resolves once the bundle is imported (rejects with the load error). */
  readonly loaded: Promise<void>;

  constructor(fn: BundledFunction, node: string, environment: Record<string, string>) {
    this.fn = fn;
    this.child = spawn(node, [WORKER, fn.bundleDirectory, fn.handler, REPO_ROOT], {
      cwd: fn.bundleDirectory,
      env: environment,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString('utf8')).slice(-20_000);
    };
    this.child.stdout?.on('data', keep);
    this.child.stderr?.on('data', keep);
    this.loaded = new Promise((resolve, reject) => {
      this.child.on('message', (raw) => {
        const message = raw as {
          type: string;
          id?: string;
          result?: unknown;
          error?: { name: string; message: string; stack?: string };
        };
        if (message.type === 'loaded') resolve();
        else if (message.type === 'load-failed')
          reject(
            new Error(`${fn.logicalId} failed to load: ${message.error?.stack ?? message.error?.message}`),
          );
        else if (message.id) {
          const waiting = this.pending.get(message.id);
          this.pending.delete(message.id);
          if (message.type === 'result') waiting?.resolve(message.result);
          else
            waiting?.reject(
              Object.assign(new Error(`${fn.logicalId}: ${message.error?.message}`), {
                name: message.error?.name ?? 'Error',
                stack: message.error?.stack,
              }),
            );
        }
      });
      this.child.on('exit', (code, signal) => {
        const error = new Error(`${fn.logicalId}'s process ended (${code ?? signal}):\n${this.output}`);
        reject(error);
        for (const waiting of this.pending.values()) waiting.reject(error);
        this.pending.clear();
      });
    });
    this.loaded.catch(() => undefined);
  }

  /** The function's recent stdout and stderr (its log lines). */
  get logs(): string {
    return this.output;
  }

  async invoke<T>(event: unknown, timeoutMs = 30_000): Promise<T> {
    await this.loaded;
    const id = randomUUID();
    const answer = new Promise<unknown>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.child.send({ type: 'invoke', id, event, timeoutMs });
    return (await answer) as T;
  }

  stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.kill();
    });
  }
}

/** What the invoking service gives a handler as its context (the time left is the worker's). */
export type InvokeContext = Pick<Context, 'functionName' | 'awsRequestId'>;

/**
 * The two AWS services the bundles reach that the local cloud has no stand-in for: Secrets
 * Manager (`GetSecretValue`, the secrets the template names by ARN) and Lambda (`Invoke`, the
 * webhook intake's nudge of the sweep, recorded). One HTTP server; point
 * AWS_ENDPOINT_URL_SECRETS_MANAGER and AWS_ENDPOINT_URL_LAMBDA at `endpoint`.
 */
export const startSecretsAndLambdaStandIn = async (secrets: Map<string, string>) => {
  const invocations: { functionName: string; invocationType: string; payload: string }[] = [];
  const secretReads: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const target = request.headers['x-amz-target'];
      if (target === 'secretsmanager.GetSecretValue') {
        const { SecretId } = JSON.parse(body) as { SecretId: string };
        const value = secrets.get(SecretId);
        secretReads.push(SecretId);
        response.setHeader('content-type', 'application/x-amz-json-1.1');
        if (value === undefined) {
          response.statusCode = 400;
          response.end(
            JSON.stringify({ __type: 'ResourceNotFoundException', message: `no secret ${SecretId}` }),
          );
          return;
        }
        response.end(JSON.stringify({ ARN: SecretId, Name: SecretId, SecretString: value }));
        return;
      }
      const invoke = /^\/2015-03-31\/functions\/([^/]+)\/invocations/.exec(request.url ?? '');
      if (invoke?.[1]) {
        invocations.push({
          functionName: decodeURIComponent(invoke[1]),
          invocationType: String(request.headers['x-amz-invocation-type'] ?? 'RequestResponse'),
          payload: body,
        });
        response.statusCode = 202;
        response.end();
        return;
      }
      response.statusCode = 400;
      response.end(
        JSON.stringify({ message: `the stand-in does not serve ${request.method} ${request.url}` }),
      );
    });
  });
  const endpoint = `http://127.0.0.1:${await listenOn(server, 0, '127.0.0.1')}`;
  return { endpoint, invocations, secretReads, stop: () => closeServer(server) };
};

/** The folders of an assembly's assets (for the check that every bundle folder was found). */
export const bundleFolders = (directory: string): string[] =>
  readdirSync(directory).filter(
    (name) => name.startsWith('asset.') && existsSync(path.join(directory, name, 'index.mjs')),
  );
