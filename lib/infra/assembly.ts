import { readFileSync } from 'node:fs';
import path from 'node:path';
import { NestedStack, Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * The stacks of a synthesized app, the root and its nested stacks (one per feature area of the
 * API, lib/infra/constructs/api.ts): where each template is, and which resource of its parent
 * deploys a nested one. For counting resources per stack, and for reading the whole app as one
 * template (flattenedTemplate) in tests and in the permissions matrix.
 */
export interface SynthesizedStackFile {
  /** The stack's construct path. */
  path: string;
  /** The template's file name in the assembly directory. */
  templateFile: string;
  /** For a nested stack: the logical id of the AWS::CloudFormation::Stack in its parent. */
  resourceInParent?: string;
}

export const stackFiles = (root: IConstruct): SynthesizedStackFile[] =>
  root.node
    .findAll()
    .filter((child): child is Stack => Stack.isStack(child))
    .map((stack) => {
      if (!NestedStack.isNestedStack(stack))
        return { path: stack.node.path, templateFile: stack.templateFile };
      const parent = stack.nestedStackParent;
      if (!parent) throw new Error(`nested stack ${stack.node.path} has no parent`);
      return {
        path: stack.node.path,
        templateFile: stack.templateFile,
        resourceInParent: parent.resolve(stack.nestedStackResource?.logicalId) as string,
      };
    });

type Json = Record<string, unknown>;
interface Template {
  Resources?: Record<string, Json>;
  Outputs?: Record<string, { Value: unknown }>;
  Parameters?: Json;
  [key: string]: unknown;
}

const readTemplate = (directory: string, file: string): Template =>
  JSON.parse(readFileSync(path.join(directory, file), 'utf8')) as Template;

/** Replaces every `{ Ref: name }` whose name `values` has with that value. */
const substitute = (value: unknown, values: Json): unknown => {
  if (Array.isArray(value)) return value.map((item) => substitute(item, values));
  if (value && typeof value === 'object') {
    const ref = (value as { Ref?: unknown }).Ref;
    if (typeof ref === 'string' && Object.keys(value).length === 1 && ref in values) return values[ref];
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substitute(item, values)]));
  }
  return value;
};

/**
 * The app as one template: the root's resources and every nested stack's, with each nested
 * parameter replaced by what its parent passes (so a grant on the table reads `DataTable...Arn`
 * wherever the function is). The nested stacks' own AWS::CloudFormation::Stack resources stay.
 */
export const flattenedTemplate = (directory: string, files: readonly SynthesizedStackFile[]): Template => {
  const [root, ...nested] = files;
  if (!root || root.resourceInParent) throw new Error('the first stack must be the root');
  const merged = readTemplate(directory, root.templateFile);
  const resources = { ...(merged.Resources ?? {}) };
  for (const file of nested) {
    const parentResource = resources[file.resourceInParent ?? ''] as
      | { Properties?: { Parameters?: Json } }
      | undefined;
    const values = parentResource?.Properties?.Parameters ?? {};
    const template = substitute(readTemplate(directory, file.templateFile), values) as Template;
    for (const [id, resource] of Object.entries(template.Resources ?? {})) {
      if (id in resources) throw new Error(`logical id ${id} is in two stacks`);
      resources[id] = resource;
    }
  }
  return { ...merged, Resources: resources };
};

/** Resource count of each stack's template, by stack path. */
export const resourceCounts = (
  directory: string,
  files: readonly SynthesizedStackFile[],
): Map<string, number> =>
  new Map(
    files.map((file) => [
      file.path,
      Object.keys(readTemplate(directory, file.templateFile).Resources ?? {}).length,
    ]),
  );
