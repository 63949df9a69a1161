import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { ESM_REQUIRE_BANNER, EXTERNAL_MODULES, MAIN_FIELDS, NODE_TARGET } from '../../lib/bundling.ts';
import { REPO_ROOT } from '../../lib/constructs/lambda.ts';
import { AUTHORIZER_HANDLER, routes } from '../../lib/routes.ts';

export const SIZE_TARGET_BYTES = 250 * 1000;
export const IMPORT_TARGET_MS = 80;
/** Samples per figure; baseline and handler runs alternate so that machine load affects both alike. */
const RUNS = 21;

export interface BundleFigure {
  name: string;
  bytes: number;
  importMs: number;
  usesStripe: boolean;
  meetsTargets: boolean;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/** Wall time of a fresh `node` process running `code` as an ES module. */
const timeProcess = (code: string): number => {
  const startedAt = performance.now();
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', code], { stdio: 'pipe' });
  const elapsed = performance.now() - startedAt;
  if (result.status !== 0) throw new Error(`bench process failed: ${result.stderr.toString()}`);
  return elapsed;
};

/**
 * Builds every handler as the CDK app does (lib/bundling.ts) and measures its minified size and
 * the median time a fresh Node process takes to import it, minus the median of an empty process.
 */
export const measureBundles = async (): Promise<BundleFigure[]> => {
  const outRoot = path.join(REPO_ROOT, '.reports', 'bench-bundles');
  rmSync(outRoot, { recursive: true, force: true });
  const entries = [
    ...routes.map((route) => ({ name: `${route.method} ${route.path}`, entry: route.handler, id: route.id })),
    { name: 'session authorizer', entry: AUTHORIZER_HANDLER, id: 'SessionAuthorizer' },
  ];
  const figures: BundleFigure[] = [];
  for (const { name, entry, id } of entries) {
    const outfile = path.join(outRoot, id, 'index.mjs');
    mkdirSync(path.dirname(outfile), { recursive: true });
    const result = await build({
      entryPoints: [path.join(REPO_ROOT, entry)],
      outfile,
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
    });
    const usesStripe = Object.keys(result.metafile.inputs).some((input) =>
      input.includes('node_modules/stripe/'),
    );
    const bytes = statSync(outfile).size;
    const code = `await import(${JSON.stringify(pathToFileURL(outfile).href)});`;
    const differences: number[] = [];
    for (let run = 0; run < RUNS; run++) differences.push(timeProcess(code) - timeProcess('0'));
    const importMs = Math.max(0, median(differences));
    const meetsTargets = usesStripe || (bytes <= SIZE_TARGET_BYTES && importMs <= IMPORT_TARGET_MS);
    figures.push({ name, bytes, importMs, usesStripe, meetsTargets });
  }
  return figures;
};
