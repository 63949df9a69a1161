/**
 * The layers of docs/architecture.md ("The dependency rule"), checked by `npm run lint`
 * (`depcruise functions lib test`). A use case is any folder of functions/ that is not one of the
 * layers or entry points named in NOT_USE_CASES, so a new use-case folder is covered without an
 * edit here. test/unit/layers.test.ts plants one break of each rule and checks that it is found.
 */

/** The folders of functions/ that are not use cases: the layers and the entry points. */
const NOT_USE_CASES = '^functions/(api|webhooks|workflow-tasks|http|core|store|ports)/';
/**
 * The entry points: Lambda handlers that lib/ names by path and nothing imports. The API handlers,
 * the webhook intake, the Plan Change workflow's Task handlers, the session authorizer and the
 * sweep's handler (the processor events queue has no consumer of its own: the sweep drains it).
 */
const ENTRY_POINTS =
  '^functions/(api|webhooks|workflow-tasks)/|^functions/http/authorizer\\.ts$|^functions/reconciler/sweep\\.ts$';
/** What writes a tenant's billing state (functions/store/lifecycle.ts) and the sweep that calls it. */
const BILLING_STATE_WRITERS = '^functions/(store/lifecycle\\.ts$|reconciler/)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'core-imports-nothing-of-ours',
      comment: 'functions/core holds the pure rules: it imports only functions/core.',
      severity: 'error',
      from: { path: '^functions/core/' },
      to: { path: '^(functions|lib|test|statemachines)/', pathNot: '^functions/core/' },
    },
    {
      name: 'core-does-no-io',
      comment:
        'functions/core does no I/O: no package and no Node module but node:crypto (hashing, random tokens).',
      severity: 'error',
      from: { path: '^functions/core/' },
      to: { dependencyTypesNot: ['local', 'aliased-subpath-import'], pathNot: '^(node:)?crypto$' },
    },
    {
      name: 'use-cases-not-http',
      comment:
        'A use case is shared by API handlers, workflow tasks and ops commands: it knows no HTTP (functions/http).',
      severity: 'error',
      from: { path: '^functions/[^/]+/', pathNot: NOT_USE_CASES },
      to: { path: '^functions/http/' },
    },
    {
      name: 'store-and-ports-not-use-cases',
      comment:
        'functions/store and functions/ports serve the use cases: they import only core, store and ports.',
      severity: 'error',
      from: { path: '^functions/(store|ports)/' },
      to: { path: '^functions/', pathNot: '^functions/(core|store|ports)/' },
    },
    {
      name: 'nothing-imports-an-entry-point',
      comment: 'Handlers are entry points: lib/ names them by path, no module of functions/ imports one.',
      severity: 'error',
      from: { path: '^functions/' },
      to: { path: ENTRY_POINTS },
    },
    {
      name: 'entry-points-not-the-store',
      comment:
        'An entry point parses, calls a use case and answers: it never imports functions/store (the use case reads and writes).',
      severity: 'error',
      from: { path: ENTRY_POINTS },
      to: { path: '^functions/store/' },
    },
    {
      name: 'ports-not-the-store',
      comment:
        'functions/store uses the ports (configuration, metrics, tracing); a port never imports functions/store, so the two are no cycle. One exception is left: the processor rate limiter takes its places in the table (functions/store/processor-budget.ts), and every processor call of the port waits for one.',
      severity: 'error',
      from: { path: '^functions/ports/', pathNot: '^functions/ports/rate-limit\\.ts$' },
      to: { path: '^functions/store/' },
    },
    {
      name: 'store-keys-for-tests-only',
      comment:
        'Each entity of the table is declared once, in its store module (functions/store/entity.ts): the code of functions/ and lib/ takes keys from the entities; functions/store/keys.ts, every key by name, is for tests, benches and tools.',
      severity: 'error',
      from: { path: '^(functions|lib)/', pathNot: '^functions/store/keys\\.ts$' },
      to: { path: '^functions/store/keys\\.ts$' },
    },
    {
      name: 'only-the-sweep-writes-billing-state',
      comment:
        "Only the sweep writes a tenant's billing state: no entry point but the sweep's handler reaches the writer (functions/store/lifecycle.ts) or the reconciler (the webhook's nudge aside, which writes no billing state).",
      severity: 'error',
      from: { path: ENTRY_POINTS, pathNot: '^functions/reconciler/sweep\\.ts$' },
      to: { path: BILLING_STATE_WRITERS, pathNot: '^functions/reconciler/nudge\\.ts$', reachable: true },
    },
    {
      name: 'functions-not-lib-or-test',
      comment:
        'functions/ is what the Lambda bundles hold: it never imports lib/ (the local stand-ins, the CDK app) or test/.',
      severity: 'error',
      from: { path: '^functions/' },
      to: { path: '^(lib|test)/' },
    },
    {
      name: 'only-the-cdk-app-loads-the-cdk',
      comment:
        'lib/local, lib/ops, lib/console and the shared tables of lib/ never load the CDK app (nor aws-cdk-lib with it).',
      severity: 'error',
      from: { path: '^lib/', pathNot: '^lib/infra/' },
      to: { path: '^lib/infra/' },
    },
    {
      name: 'ops-not-local',
      comment:
        'lib/ops runs beside the local control plane, never inside it: it never imports lib/local (what it reads of a local run is lib/local-data.ts).',
      severity: 'error',
      from: { path: '^lib/ops/' },
      to: { path: '^lib/local/' },
    },
    {
      name: 'dynamodb-sdk-only-in-the-store',
      comment:
        'The DynamoDB SDK is loaded by functions/store and the local cloud (lib/local) only; tests read the table directly to assert what was stored.',
      severity: 'error',
      from: { path: '^(functions|lib)/', pathNot: '^(functions/store|lib/local)/' },
      to: { path: '^node_modules/@aws-sdk/(client-dynamodb|lib-dynamodb)/' },
    },
    {
      name: 'cdk-only-in-infra',
      comment:
        "aws-cdk-lib, constructs and cdk-nag are imported by lib/infra, test/infra and the infra layer's own support (its global setup that synthesizes once, and the reader of that synthesis) only.",
      severity: 'error',
      from: { pathNot: '^(lib/infra|test/infra)/|^test/support/(synthesized-stack|infra-setup)\\.ts$' },
      to: { path: '^node_modules/(aws-cdk-lib|constructs|cdk-nag)/' },
    },
    {
      name: 'stripe-only-in-the-processor-port',
      comment:
        'The Stripe SDK is loaded by the processor port (functions/ports/processor/) and nowhere else; the emulator (lib/local/processor/) reads its types (emulator-reads-stripe-types-only).',
      severity: 'error',
      from: { pathNot: '^(functions/ports/processor|lib/local/processor)/' },
      to: { path: '^node_modules/stripe/' },
    },
    {
      name: 'emulator-reads-stripe-types-only',
      comment:
        "The processor emulator (lib/local/processor/) answers in Stripe's shapes: it imports the Stripe SDK for its types only (import type), never its code.",
      severity: 'error',
      from: { path: '^lib/local/processor/' },
      to: { path: '^node_modules/stripe/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'console-is-self-contained',
      comment: "lib/console is served as it is to the browser: it imports only lib/console's own files.",
      severity: 'error',
      from: { path: '^lib/console/' },
      to: { pathNot: '^lib/console/' },
    },
    {
      name: 'client-is-self-contained',
      comment:
        'lib/client is the package a tenant app installs: it imports only its own files and openapi-fetch (the reference Dispatcher imports it, never the other way).',
      severity: 'error',
      from: { path: '^lib/client/' },
      to: { pathNot: '^lib/client/|(^|/)node_modules/openapi-fetch/' },
    },
    {
      name: 'no-circular',
      comment: 'No import cycle anywhere (type-only imports count: two modules that know each other).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-unresolvable',
      comment: 'Every import names a file or package that exists.',
      severity: 'error',
      from: {},
      // Node's own modules are known to the Node that runs the check (npm run puts ours first).
      to: { couldNotResolve: true, pathNot: '^node:' },
    },
  ],
  options: {
    // Type-only imports are dependencies too (`import type`): a cycle of types is still a cycle.
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(cdk\\.out|\\.local|\\.reports)/' },
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json', '.d.ts'],
    },
    skipAnalysisNotInRules: true,
  },
};
