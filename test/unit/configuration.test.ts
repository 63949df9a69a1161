import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { CDK_CONTEXT, config, DEFAULTS, ENVIRONMENT } from '#ports/config.ts';
import { REPO_ROOT } from '../../lib/constants.ts';
import { EXTERNAL_MODULES, MAIN_FIELDS, NODE_TARGET } from '../../lib/infra/bundling.ts';

const filesUnder = (directory: string): string[] =>
  readdirSync(path.join(REPO_ROOT, directory), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => path.posix.join(directory, file.split(path.sep).join('/')))
    .sort();

const declared = new Set<string>(Object.keys(ENVIRONMENT));

/** `process.env.NAME` and `process.env['NAME']` reads, by name. */
const envReads = (source: string): string[] =>
  [...source.matchAll(/process\.env(?:\.([A-Za-z_][A-Za-z0-9_]*)|\[\s*['"`]([^'"`]+)['"`]\s*\])/g)].map(
    (match) => match[1] ?? match[2] ?? '',
  );

describe('every environment variable is declared once, in functions/ports/config.ts', () => {
  it('every process.env.X read in functions/ and lib/ names a declared variable', () => {
    const undeclared = ['functions', 'lib'].flatMap(filesUnder).flatMap((file) =>
      envReads(readFileSync(path.join(REPO_ROOT, file), 'utf8'))
        .filter((name) => !declared.has(name))
        .map((name) => `${file}: ${name}`),
    );
    expect(undeclared, 'declare these in ENVIRONMENT (functions/ports/config.ts)').toEqual([]);
  });

  it('functions read the environment only through the configuration module', () => {
    const readers = filesUnder('functions').filter(
      (file) =>
        file !== 'functions/ports/config.ts' &&
        /process\.env\b/.test(readFileSync(path.join(REPO_ROOT, file), 'utf8')),
    );
    expect(readers, 'read it with config.* or env() of #ports/config.ts').toEqual([]);
  });

  it('the README Configuration table lists exactly the declared variables and context settings', () => {
    const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
    const section = readme.split(/^## Configuration\n/m)[1]?.split(/^## /m)[0] ?? '';
    const rows = section
      .split('\n')
      .filter((line) => line.startsWith('| ') && !line.startsWith('| variable |'))
      .map((line) => {
        const [names = '', ...rest] = line.slice(2).split(' | ');
        return {
          names: [...names.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? ''),
          text: rest.join(' | '),
        };
      });
    const listed = rows.flatMap((row) => row.names).sort();
    const contextOnly = Object.entries(CDK_CONTEXT)
      .filter(([, setting]) => setting.sets === undefined)
      .map(([key]) => key);
    expect(listed).toEqual([...declared, ...contextOnly].sort());

    const rowOf = (name: string) => rows.find((row) => row.names.includes(name))?.text ?? '';
    for (const [name, variable] of Object.entries(ENVIRONMENT)) {
      const defaults: (string | undefined)[] = [
        'default' in variable ? variable.default : undefined,
        'localDefault' in variable ? variable.localDefault : undefined,
      ];
      for (const value of defaults)
        if (value !== undefined) expect(rowOf(name), `${name}'s row names its default`).toContain(value);
    }
    for (const [key, setting] of Object.entries(CDK_CONTEXT))
      if (setting.sets) expect(rowOf(setting.sets), `${setting.sets}'s row names its context`).toContain(key);
  });

  it('DEFAULTS holds exactly the declared defaults', () => {
    const declaredDefaults = Object.fromEntries(
      Object.entries(ENVIRONMENT).flatMap(([name, variable]) =>
        'default' in variable ? [[name, variable.default]] : [],
      ),
    );
    expect(DEFAULTS).toEqual(declaredDefaults);
  });

  it("a Lambda bundle carries the defaults, not the catalog's descriptions", async () => {
    const { outputFiles } = await build({
      absWorkingDir: REPO_ROOT,
      entryPoints: ['functions/api/get-me.ts'],
      bundle: true,
      write: false,
      outfile: 'out/index.mjs',
      platform: 'node',
      format: 'esm',
      minify: true,
      target: NODE_TARGET,
      mainFields: MAIN_FIELDS,
      external: EXTERNAL_MODULES,
      logLevel: 'silent',
    });
    const bundle = outputFiles[0]?.text ?? '';
    expect(bundle).toContain('STACK_DOMAIN');
    const carried = Object.values(ENVIRONMENT)
      .map((variable) => variable.meaning)
      .filter((meaning) => bundle.includes(meaning));
    expect(carried).toEqual([]);
  });

  it('the readers apply the declared defaults', () => {
    const saved = process.env.EXPORT_WINDOW_DAYS;
    delete process.env.EXPORT_WINDOW_DAYS;
    try {
      expect(config.exportWindowDays()).toBe(Number(ENVIRONMENT.EXPORT_WINDOW_DAYS.default));
    } finally {
      if (saved !== undefined) process.env.EXPORT_WINDOW_DAYS = saved;
    }
  });
});

/** lib/local files whose move off aws-cdk-lib is pending (files another engineer owns right now). */
const PENDING: Record<string, string> = {};

const CDK_PACKAGE = /^(aws-cdk-lib|aws-cdk|constructs|cdk-nag)(\/|$)/;

/** The chain of modules from `entry` to one that imports a CDK package, or undefined. */
const chainToCdk = (inputs: Metafile['inputs'], entry: string): string[] | undefined => {
  const seen = new Set([entry]);
  const queue: string[][] = [[entry]];
  for (let chain = queue.shift(); chain; chain = queue.shift()) {
    const file = chain.at(-1) ?? '';
    for (const imported of inputs[file]?.imports ?? []) {
      if (imported.external && CDK_PACKAGE.test(imported.path)) return [...chain, imported.path];
      if (!imported.external && !seen.has(imported.path)) {
        seen.add(imported.path);
        queue.push([...chain, imported.path]);
      }
    }
  }
  return undefined;
};

describe('the local run does not load the CDK', () => {
  it('no lib/local module imports aws-cdk-lib, directly or through the modules it imports', async () => {
    const entries = filesUnder('lib/local');
    const { metafile } = await build({
      absWorkingDir: REPO_ROOT,
      entryPoints: entries,
      bundle: true,
      write: false,
      outdir: 'out',
      platform: 'node',
      format: 'esm',
      packages: 'external',
      metafile: true,
      logLevel: 'silent',
    });
    const loading = Object.fromEntries(
      entries.flatMap((entry) => {
        const chain = chainToCdk(metafile.inputs, entry);
        return chain ? [[entry, chain.join(' -> ')]] : [];
      }),
    );
    expect(Object.keys(metafile.inputs)).toContain('lib/local/cloud.ts');
    expect(
      Object.keys(loading)
        .filter((entry) => !(entry in PENDING))
        .map((entry) => loading[entry]),
      'move the constant it needs to lib/constants.ts (or functions/ports/config.ts)',
    ).toEqual([]);
    expect(
      Object.keys(PENDING).filter((entry) => !(entry in loading)),
      'no longer loads the CDK: remove it from PENDING',
    ).toEqual([]);
  });
});
