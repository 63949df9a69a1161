import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { App } from 'aws-cdk-lib';
import type { TestProject } from 'vitest/node';
import { buildApp, synthCheckContext } from '../../lib/infra/app.ts';
import { type SynthesizedStackFile, stackFiles } from '../../lib/infra/assembly.ts';

export interface SynthesizedStack {
  /** The cloud assembly's folder (the template, the assets manifest, cdk-nag's validation report). */
  directory: string;
  /** The stack template's file name in it. */
  templateFile: string;
  /** Every stack's template, the root first, then its nested stacks (lib/infra/assembly.ts). */
  stacks: SynthesizedStackFile[];
  /** Every cdk-nag rule acknowledged in the app, with its reason. */
  acknowledgements: [string, string][];
}

declare module 'vitest' {
  export interface ProvidedContext {
    synthesizedStack: SynthesizedStack;
  }
}

/**
 * The infra layer's one synth of the app as `cdk synth` makes it (bundled, cdk-nag run: a finding
 * fails it, and with it the layer), shared by the files that read the default app
 * (test/support/synthesized-stack.ts); a file that needs another app (other context, a mocked
 * route table) builds its own, unbundled. With INFRA_ASSEMBLY_DIR (set by .ci/run after its synth
 * phase) it reads that assembly's templates and bundles instead of bundling again.
 */
export default function setup(project: TestProject) {
  // CI has just run `cdk synth -c stage=synth-check` (bundled, cdk-nag run) into cdk.out, the same
  // app and context as here: the layer reads that assembly instead of bundling every function a
  // second time (about 40 s of the run's start), and synthesizes unbundled for what only the
  // construct tree knows (the template files' names, the acknowledged rules).
  const reused = process.env.INFRA_ASSEMBLY_DIR;
  const context = synthCheckContext(reused ? { 'aws:cdk:bundling-stacks': [] } : {});
  const { app, stack } = buildApp(new App({ context }));
  const assembly = app.synth();
  const directory = reused ? path.resolve(reused) : assembly.directory;
  if (reused && !existsSync(path.join(directory, stack.templateFile)))
    throw new Error(
      `INFRA_ASSEMBLY_DIR=${reused} has no ${stack.templateFile}: run \`npm run synth -- -c stage=synth-check\` first, or unset it`,
    );
  const acknowledgements = app.node
    .findAll()
    .flatMap((construct) =>
      construct.node.metadata.filter((entry) => entry.type === 'aws:cdk:acknowledged-rules'),
    )
    .flatMap((entry) => Object.entries(entry.data as Record<string, string>));
  project.provide('synthesizedStack', {
    directory,
    templateFile: stack.templateFile,
    stacks: stackFiles(stack),
    acknowledgements,
  });
  return () => {
    rmSync(assembly.directory, { recursive: true, force: true });
  };
}
