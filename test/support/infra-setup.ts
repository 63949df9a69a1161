import { rmSync } from 'node:fs';
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
 * route table) builds its own, unbundled.
 */
export default function setup(project: TestProject) {
  const { app, stack } = buildApp(new App({ context: synthCheckContext() }));
  const assembly = app.synth();
  const acknowledgements = app.node
    .findAll()
    .flatMap((construct) =>
      construct.node.metadata.filter((entry) => entry.type === 'aws:cdk:acknowledged-rules'),
    )
    .flatMap((entry) => Object.entries(entry.data as Record<string, string>));
  project.provide('synthesizedStack', {
    directory: assembly.directory,
    templateFile: stack.templateFile,
    stacks: stackFiles(stack),
    acknowledgements,
  });
  return () => {
    rmSync(assembly.directory, { recursive: true, force: true });
  };
}
