/**
 * One Lambda instance of a bundle, for test/support/lambda-bundles.ts (plain JavaScript: it runs
 * under the Lambda runtime's Node version as is, with nothing of the repository's TypeScript).
 *
 *   node lambda-bundle-worker.mjs <bundle folder> <Handler, e.g. index.handler> <repository root>
 *
 * As Lambda does: the handler's module is found in the bundle's folder (`.mjs`, `.js`, `.cjs`) and
 * imported once (the init); invocations then come one at a time over IPC. The only packages a
 * bundle may import from outside itself are Node's built-ins and what the Lambda Node.js runtime
 * provides, the AWS SDK for JavaScript v3 (`@aws-sdk/*`, taken here from the repository's
 * node_modules); any other package a bundle left out fails to load, as it would in Lambda.
 */
import { existsSync } from 'node:fs';
import { isBuiltin, registerHooks } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [bundleDirectory, handlerSetting, repositoryRoot] = process.argv.slice(2);
const bundleUrl = pathToFileURL(`${bundleDirectory}${path.sep}`).href;
const runtimeModulesParent = pathToFileURL(path.join(repositoryRoot, 'package.json')).href;

const isBare = (specifier) => !isBuiltin(specifier) && !/^(\.{1,2}\/|\/|file:|node:|data:)/.test(specifier);

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (context.parentURL?.startsWith(bundleUrl) && isBare(specifier)) {
      if (specifier.startsWith('@aws-sdk/'))
        return nextResolve(specifier, { ...context, parentURL: runtimeModulesParent });
      throw Object.assign(
        new Error(
          `Cannot find package '${specifier}' imported from ${context.parentURL}: it is not in the bundle, and the Lambda runtime provides only the AWS SDK (@aws-sdk/*)`,
        ),
        { code: 'ERR_MODULE_NOT_FOUND' },
      );
    }
    return nextResolve(specifier, context);
  },
});

const serializeError = (error) => ({
  name: error?.name ?? 'Error',
  message: error?.message ?? String(error),
  stack: error?.stack,
});

const load = async () => {
  const dot = handlerSetting.lastIndexOf('.');
  const moduleName = handlerSetting.slice(0, dot);
  const exportName = handlerSetting.slice(dot + 1);
  const file = ['.mjs', '.js', '.cjs']
    .map((extension) => path.join(bundleDirectory, `${moduleName}${extension}`))
    .find((candidate) => existsSync(candidate));
  if (!file) throw new Error(`no ${moduleName}.mjs, .js or .cjs in ${bundleDirectory}`);
  const module = await import(pathToFileURL(file).href);
  const handler = module[exportName];
  if (typeof handler !== 'function') throw new Error(`${file} exports no function ${exportName}`);
  return handler;
};

let handler;
try {
  handler = await load();
  process.send({ type: 'loaded' });
} catch (error) {
  process.send({ type: 'load-failed', error: serializeError(error) }, () => process.exit(1));
}

process.on('message', async (message) => {
  if (message?.type !== 'invoke' || !handler) return;
  const started = Date.now();
  const context = {
    callbackWaitsForEmptyEventLoop: true,
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${process.env.AWS_REGION}:000000000000:function:${process.env.AWS_LAMBDA_FUNCTION_NAME}`,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    awsRequestId: message.id,
    logGroupName: `/aws/lambda/${process.env.AWS_LAMBDA_FUNCTION_NAME}`,
    logStreamName: 'bundle-test',
    getRemainingTimeInMillis: () => Math.max(0, message.timeoutMs - (Date.now() - started)),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
  try {
    const result = await handler(message.event, context);
    process.send({ type: 'result', id: message.id, result: result ?? null });
  } catch (error) {
    process.send({ type: 'error', id: message.id, error: serializeError(error) });
  }
});
// The IPC channel keeps the process alive until the test ends it; without the test, it ends too.
process.on('disconnect', () => process.exit(0));
