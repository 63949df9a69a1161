import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { REPO_ROOT } from '../../lib/constants.ts';
import { ESM_REQUIRE_BANNER, EXTERNAL_MODULES, MAIN_FIELDS, NODE_TARGET } from '../../lib/infra/bundling.ts';
import { AUTHORIZER_HANDLER, routes } from '../../lib/routes.ts';

export const SIZE_TARGET_BYTES = 250 * 1000;
/**
 * The cold-import target is on the handler's overhead over a do-nothing baseline measured in the
 * same run, not on an absolute time: on a shared machine an absolute time flips with the load.
 */
export const IMPORT_OVERHEAD_TARGET_MS = 40;
/** Fresh processes per figure (the median is reported); handler and baseline alternate. */
const RUNS = 11;

export interface BundleFigure {
  name: string;
  bytes: number;
  /** Median cold import of the handler's bundle. */
  importMs: number;
  /** Median cold import of its baseline (the same runtime-provided modules, no code of ours). */
  baselineMs: number;
  /** Median of the paired differences handler - baseline, run by run. */
  overheadMs: number;
  usesStripe: boolean;
  meetsTargets: boolean;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/**
 * The time a fresh `node` process spends importing `file`, measured inside that process around
 * the `import()` alone: the process's own startup is excluded by construction.
 */
const coldImportMs = (file: string): number => {
  const code = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); process.stdout.write(String(performance.now() - t));`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', code], { stdio: 'pipe' });
  if (result.status !== 0) throw new Error(`bench process failed: ${result.stderr.toString()}`);
  return Number(result.stdout.toString());
};

const BUILD_OPTIONS = {
  bundle: true,
  minify: true,
  sourcemap: true,
  format: 'esm',
  platform: 'node',
  target: NODE_TARGET,
  mainFields: MAIN_FIELDS,
  external: EXTERNAL_MODULES,
  banner: { js: ESM_REQUIRE_BANNER },
  metafile: true,
  logLevel: 'silent',
} as const;

/**
 * The baseline of a handler: a bundle built with the same options (externals, banner, target)
 * from a module that only imports the runtime-provided modules the handler's bundle imports (the
 * AWS SDK clients, left external as in Lambda) and does nothing else. Why this and not a synthetic
 * module of the same byte size: what the handler cannot change (Node's module loader, the ESM
 * banner, loading the SDK clients the runtime provides) is in both, and what is left, the
 * overhead, is exactly the code we bundle and run at import (our modules, valibot, middy,
 * Powertools). A same-size filler would be parsed but not run, and would hide the SDK's share.
 * Handlers importing the same SDK modules share one baseline.
 */
const baselineFor = async (outRoot: string, externals: string[], cache: Map<string, string>) => {
  const key = createHash('sha256').update(externals.join('\n')).digest('hex').slice(0, 12);
  const known = cache.get(key);
  if (known) return known;
  const directory = path.join(outRoot, `baseline-${key}`);
  mkdirSync(directory, { recursive: true });
  const entry = path.join(directory, 'entry.mjs');
  writeFileSync(entry, `${externals.map((name) => `import ${JSON.stringify(name)};`).join('\n')}\n`);
  const outfile = path.join(directory, 'index.mjs');
  await build({ ...BUILD_OPTIONS, entryPoints: [entry], outfile });
  cache.set(key, outfile);
  return outfile;
};

/**
 * Builds every handler as the CDK app does (lib/infra/bundling.ts) and measures its minified size, the
 * median time a fresh Node process takes to import it, the same for its baseline, and the median
 * of the run-by-run differences (the overhead).
 */
export const measureBundles = async (): Promise<BundleFigure[]> => {
  const outRoot = path.join(REPO_ROOT, '.reports', 'bench-bundles');
  rmSync(outRoot, { recursive: true, force: true });
  const baselines = new Map<string, string>();
  const entries = [
    ...routes.map((route) => ({ name: `${route.method} ${route.path}`, entry: route.handler, id: route.id })),
    { name: 'session authorizer', entry: AUTHORIZER_HANDLER, id: 'SessionAuthorizer' },
  ];
  const figures: BundleFigure[] = [];
  for (const { name, entry, id } of entries) {
    const outfile = path.join(outRoot, id, 'index.mjs');
    mkdirSync(path.dirname(outfile), { recursive: true });
    const result = await build({ ...BUILD_OPTIONS, entryPoints: [path.join(REPO_ROOT, entry)], outfile });
    const usesStripe = Object.keys(result.metafile.inputs).some((input) =>
      input.includes('node_modules/stripe/'),
    );
    const externals = [
      ...new Set(
        Object.values(result.metafile.outputs)
          .flatMap((output) => output.imports)
          .filter((imported) => imported.external && !imported.path.startsWith('node:'))
          .map((imported) => imported.path),
      ),
    ].sort();
    const baseline = await baselineFor(outRoot, externals, baselines);
    const bytes = statSync(outfile).size;
    const handlerRuns: number[] = [];
    const baselineRuns: number[] = [];
    const differences: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      // Alternating, so that both see the same load on a shared machine.
      const base = coldImportMs(baseline);
      const own = coldImportMs(outfile);
      baselineRuns.push(base);
      handlerRuns.push(own);
      differences.push(own - base);
    }
    const importMs = median(handlerRuns);
    const baselineMs = median(baselineRuns);
    const overheadMs = median(differences);
    const meetsTargets =
      usesStripe || (bytes <= SIZE_TARGET_BYTES && overheadMs <= IMPORT_OVERHEAD_TARGET_MS);
    figures.push({ name, bytes, importMs, baselineMs, overheadMs, usesStripe, meetsTargets });
  }
  return figures;
};
