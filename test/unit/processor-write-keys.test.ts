import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Every processor write carries an idempotency key of ours (a rule of the house). The writes are
 * not listed by hand: every request the adapter (functions/ports/processor/) can make is found in
 * its source, as a call on the `stripe` client its `call(...)` hands over, and the SDK's own
 * source says which HTTP method each is. Each POST and DELETE must pass options with an
 * `idempotencyKey`; otherwise the SDK makes up a random key per call, and a retry after a lost
 * answer makes the thing twice (test/integration/money-rules-guarded.test.ts shows it for the
 * customer). A preview is a POST that writes nothing: it is the one exception, and it must still be
 * made, so that the exception cannot outlive its reason.
 */

const ADAPTER = path.resolve(import.meta.dirname, '../../functions/ports/processor');
const SDK_RESOURCES = path.resolve(import.meta.dirname, '../../node_modules/stripe/cjs/resources');

/** POSTs that change nothing at the processor, by SDK method. */
const READS_BY_POST = new Set(['invoices.createPreview']);

interface ProcessorRequest {
  file: string;
  line: number;
  /** The SDK method, as `resource.method` (`checkout.sessions.expire`). */
  method: string;
  args: readonly ts.Expression[];
}

const sourceOf = (file: string) =>
  ts.createSourceFile(file, readFileSync(path.join(ADAPTER, file), 'utf8'), ts.ScriptTarget.Latest, true);

const adapterFiles = readdirSync(ADAPTER).filter((file) => file.endsWith('.ts'));

/** `a.b.c` of a property access chain rooted at an identifier, with that root; undefined otherwise. */
const chainOf = (node: ts.Expression): { root: string; path: string[] } | undefined => {
  if (ts.isIdentifier(node)) return { root: node.text, path: [] };
  if (!ts.isPropertyAccessExpression(node)) return undefined;
  const inner = chainOf(node.expression);
  return inner && { root: inner.root, path: [...inner.path, node.name.text] };
};

/**
 * Every request on the `stripe` client in the adapter, and every use of `stripe` that is not one
 * (an alias or a pass-on would hide requests from this enumeration).
 */
const enumerate = () => {
  const requests: ProcessorRequest[] = [];
  const otherUses: string[] = [];
  const clientsNotNamedStripe: string[] = [];
  for (const file of adapterFiles) {
    const source = sourceOf(file);
    const where = (node: ts.Node) =>
      `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    const visit = (node: ts.Node): void => {
      // `call((stripe, options) => ...)`: the client is always named `stripe`.
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'call') {
        const operation = node.arguments[0];
        const first =
          operation && (ts.isArrowFunction(operation) || ts.isFunctionExpression(operation))
            ? operation.parameters[0]?.name
            : undefined;
        if (!first || !ts.isIdentifier(first) || first.text !== 'stripe')
          clientsNotNamedStripe.push(where(node));
      }
      if (ts.isCallExpression(node)) {
        const chain = chainOf(node.expression);
        if (chain?.root === 'stripe' && chain.path.length > 0) {
          requests.push({
            file,
            line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1,
            method: chain.path.join('.'),
            args: node.arguments,
          });
          node.arguments.forEach(visit);
          return;
        }
      }
      // client.ts makes the client and hands it to each operation (`call`); anywhere else the
      // name is only the operation's parameter.
      if (ts.isIdentifier(node) && node.text === 'stripe' && file !== 'client.ts') {
        const parent = node.parent;
        const declared = ts.isParameter(parent) && parent.name === node;
        if (!declared) otherUses.push(where(node));
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { requests, otherUses, clientsNotNamedStripe };
};

/** The HTTP method of an SDK method, read from the SDK's own resource source. */
const httpMethodOf = (sdkMethod: string): string => {
  const parts = sdkMethod.split('.');
  const method = parts.pop() as string;
  const resource = parts.map((part) => part[0]?.toUpperCase() + part.slice(1));
  const file = `${path.join(SDK_RESOURCES, ...resource)}.js`;
  const text = readFileSync(file, 'utf8');
  const found = new RegExp(
    `\\n\\s+${method}\\([^)]*\\)\\s*\\{\\s*return this\\._makeRequest\\('(\\w+)'`,
  ).exec(text);
  if (!found?.[1]) throw new Error(`the SDK does not say how ${sdkMethod} is sent (${file})`);
  return found[1];
};

/** Does an options argument carry `idempotencyKey`? (`{ ...options, idempotencyKey: ... }`) */
const carriesKey = (options: ts.Expression | undefined): boolean =>
  options !== undefined &&
  ts.isObjectLiteralExpression(options) &&
  options.properties.some(
    (property) =>
      (ts.isPropertyAssignment(property) || ts.isShorthandPropertyAssignment(property)) &&
      ts.isIdentifier(property.name) &&
      property.name.text === 'idempotencyKey' &&
      !(
        ts.isPropertyAssignment(property) &&
        ts.isIdentifier(property.initializer) &&
        property.initializer.text === 'undefined'
      ),
  );

describe('every processor write the adapter can make', () => {
  const { requests, otherUses, clientsNotNamedStripe } = enumerate();

  it('is found: every request goes through `call` on a client named stripe, used for nothing else', () => {
    expect(clientsNotNamedStripe).toEqual([]);
    expect(otherUses).toEqual([]);
    // The adapter's modules that talk to the processor: each makes at least one request.
    const talking = new Set(requests.map((r) => r.file));
    for (const file of adapterFiles)
      if (/\bcall\(/.test(readFileSync(path.join(ADAPTER, file), 'utf8')) && file !== 'client.ts')
        expect(talking.has(file), file).toBe(true);
  });

  it('carries an idempotency key of ours in its options (every POST and DELETE but a preview)', () => {
    const writes = requests.filter((r) => httpMethodOf(r.method) !== 'GET');
    // Customers, sessions, expiries, items, cancels, voids, refunds, catalog, portal: there are many.
    expect(writes.length).toBeGreaterThan(10);
    const unkeyed = writes
      .filter((r) => !READS_BY_POST.has(r.method))
      .filter((r) => !carriesKey(r.args.at(-1)))
      .map((r) => `${r.file}:${r.line} ${r.method}`);
    expect(unkeyed).toEqual([]);
  });

  it('the one exception is still a POST the adapter makes, and the SDK sends it as one', () => {
    for (const method of READS_BY_POST) {
      expect(requests.some((r) => r.method === method)).toBe(true);
      expect(httpMethodOf(method)).toBe('POST');
    }
  });

  it('reads are found as reads (the SDK is read right): retrieve and list are GETs, cancel a DELETE', () => {
    expect(httpMethodOf('subscriptions.retrieve')).toBe('GET');
    expect(httpMethodOf('checkout.sessions.list')).toBe('GET');
    expect(httpMethodOf('subscriptions.cancel')).toBe('DELETE');
    expect(httpMethodOf('checkout.sessions.expire')).toBe('POST');
  });
});
