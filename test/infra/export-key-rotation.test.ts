import { generateKeyPairSync } from 'node:crypto';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { buildApp, synthCheckContext } from '../../lib/infra/app.ts';
import { ConsoleSite } from '../../lib/infra/constructs/console.ts';
import {
  ExportArchives,
  type ExportArchivesProps,
  PLACEHOLDER_SIGNING_PUBLIC_KEY,
} from '../../lib/infra/constructs/exports.ts';
import { flattenedApp } from '../support/synthesized-stack.ts';

/**
 * Rotating the export download-signing key (issue 22 item 2): CloudFormation cannot change a
 * CloudFront public key's encoded key in place, so each key is a resource of its own, its logical
 * id derived from the key; the key group trusts the current and the previous key, and the download
 * route signs with the current one.
 */

type Resource = { Type: string; Properties: Record<string, unknown> };

const publicPem = () =>
  generateKeyPairSync('rsa', { modulusLength: 2048 })
    .publicKey.export({ type: 'spki', format: 'pem' })
    .toString();
const keyA = publicPem();
const keyB = publicPem();

const synthesize = (props: Omit<ExportArchivesProps, 'site'>) => {
  const stack = new Stack(new App(), 'Scratch');
  new ExportArchives(stack, 'Exports', { site: new ConsoleSite(stack, 'Console'), ...props });
  return Template.fromStack(stack).toJSON().Resources as Record<string, Resource>;
};
const publicKeys = (resources: Record<string, Resource>) =>
  Object.fromEntries(
    Object.entries(resources).filter(([, resource]) => resource.Type === 'AWS::CloudFront::PublicKey'),
  );
const idOf = (resources: Record<string, Resource>, pem: string): string => {
  const ids = Object.entries(publicKeys(resources))
    .filter(
      ([, resource]) => (resource.Properties.PublicKeyConfig as { EncodedKey: string }).EncodedKey === pem,
    )
    .map(([id]) => id);
  expect(ids).toHaveLength(1);
  return ids[0] as string;
};
const keyGroupItems = (resources: Record<string, Resource>) =>
  Object.values(resources)
    .filter((resource) => resource.Type === 'AWS::CloudFront::KeyGroup')
    .map((resource) => (resource.Properties.KeyGroupConfig as { Items: unknown[] }).Items);

/** No public key both templates have changes: every key is kept as it was, added or removed. */
const expectNoInPlaceChange = (before: Record<string, Resource>, after: Record<string, Resource>) => {
  const kept = Object.keys(publicKeys(before)).filter((id) => id in after);
  for (const id of kept) expect(after[id], id).toEqual(before[id]);
};

describe('the export download key, rotated', () => {
  it('key A, then B with A as the previous key: A keeps its resource unchanged, B is a new one, both trusted', () => {
    const first = synthesize({ signingPublicKey: keyA });
    const second = synthesize({ signingPublicKey: keyB, previousSigningPublicKey: keyA });
    const a = idOf(first, keyA);
    expect(idOf(second, keyA)).toBe(a);
    const b = idOf(second, keyB);
    expect(Object.keys(first)).not.toContain(b);
    expectNoInPlaceChange(first, second);
    expect(keyGroupItems(second)).toEqual([[{ Ref: b }, { Ref: a }]]);
    // Then A is dropped: B keeps its resource, A's goes.
    const third = synthesize({ signingPublicKey: keyB });
    expect(idOf(third, keyB)).toBe(b);
    expect(Object.keys(publicKeys(third))).toEqual([b]);
    expectNoInPlaceChange(second, third);
  });

  it('from the placeholder to an own key: a new resource, the placeholder not changed in place', () => {
    const first = synthesize({});
    const second = synthesize({
      signingPublicKey: keyA,
      previousSigningPublicKey: PLACEHOLDER_SIGNING_PUBLIC_KEY,
    });
    expect(idOf(second, PLACEHOLDER_SIGNING_PUBLIC_KEY)).toBe(idOf(first, PLACEHOLDER_SIGNING_PUBLIC_KEY));
    expectNoInPlaceChange(first, second);
    expectNoInPlaceChange(first, synthesize({ signingPublicKey: keyA }));
  });

  it('the previous key equal to the current one is one key', () => {
    expect(
      Object.keys(publicKeys(synthesize({ signingPublicKey: keyA, previousSigningPublicKey: keyA }))),
    ).toHaveLength(1);
  });

  it('the download route signs with the current key (stack context, not bundled)', () => {
    const context = synthCheckContext({ 'aws:cdk:bundling-stacks': [] });
    const stages = context.stages as Record<string, Record<string, unknown>>;
    context.stages = {
      ...stages,
      'synth-check': {
        ...stages['synth-check'],
        exportsSigningPublicKey: keyB,
        exportsSigningPreviousPublicKey: keyA,
      },
    };
    const { app, stack } = buildApp(new App({ context }));
    // The route's function is in its area's nested stack: the app read as one template.
    const resources = flattenedApp(stack, app.synth().directory).toJSON().Resources as Record<
      string,
      Resource
    >;
    const download = Object.entries(resources).filter(
      ([id, resource]) =>
        resource.Type === 'AWS::Lambda::Function' && /^ApiPostStackExportDownload[0-9A-F]{8}$/.test(id),
    );
    expect(download).toHaveLength(1);
    const [, downloadFunction] = download[0] as [string, Resource];
    const variables = (downloadFunction.Properties.Environment as { Variables: Record<string, unknown> })
      .Variables;
    expect(variables.EXPORTS_SIGNING_KEY_PAIR_ID).toEqual({ Ref: idOf(resources, keyB) });
    expect(keyGroupItems(resources)).toEqual([
      [{ Ref: idOf(resources, keyB) }, { Ref: idOf(resources, keyA) }],
    ]);
  }, 120_000);
});
