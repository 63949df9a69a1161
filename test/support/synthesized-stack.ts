import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { inject } from 'vitest';

/**
 * The app as `cdk synth` makes it, synthesized once for the infra layer by its global setup
 * (test/support/infra-setup.ts): the template, the assembly's folder and the acknowledged cdk-nag
 * rules.
 */
export const synthesizedStack = () => {
  const { directory, templateFile, acknowledgements } = inject('synthesizedStack');
  const template = Template.fromJSON(JSON.parse(readFileSync(path.join(directory, templateFile), 'utf8')));
  return { template, assemblyDirectory: directory, acknowledgements };
};

/** cdk-nag's findings in an assembly (its validation report): none is the only good answer. */
export const nagViolations = (assemblyDirectory: string): unknown[] => {
  const report = JSON.parse(readFileSync(path.join(assemblyDirectory, 'validation-report.json'), 'utf8'));
  return (report.pluginReports ?? []).flatMap(
    (plugin: { violations?: unknown[] }) => plugin.violations ?? [],
  );
};
