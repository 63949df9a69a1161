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
/** Fresh processes per figure (the median is reported). */
const RUNS = 15;

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

/**
 * Builds every handler as the CDK app does (lib/bundling.ts) and measures its minified size and
 * the median time a fresh Node process takes to import it.
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
    const importMs = median(Array.from({ length: RUNS }, () => coldImportMs(outfile)));
    const meetsTargets = usesStripe || (bytes <= SIZE_TARGET_BYTES && importMs <= IMPORT_TARGET_MS);
    figures.push({ name, bytes, importMs, usesStripe, meetsTargets });
  }
  return figures;
};
