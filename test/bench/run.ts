import { IMPORT_TARGET_MS, measureBundles, SIZE_TARGET_BYTES } from './bundles.ts';

/** `npm run bench`: prints the figures the issues set targets for; exits 1 when a target is missed. */
const main = async () => {
  let missed = 0;
  console.log(
    `Handler bundles (targets without the Stripe SDK: <= ${SIZE_TARGET_BYTES / 1000} KB, <= ${IMPORT_TARGET_MS} ms cold import)`,
  );
  console.log(`${'handler'.padEnd(36)} ${'size (KB)'.padStart(10)} ${'import (ms)'.padStart(12)}  verdict`);
  for (const figure of await measureBundles()) {
    if (!figure.meetsTargets) missed++;
    const verdict = figure.usesStripe
      ? 'n/a (Stripe SDK)'
      : figure.meetsTargets
        ? 'meets target'
        : 'MISSES TARGET';
    console.log(
      `${figure.name.padEnd(36)} ${(figure.bytes / 1000).toFixed(1).padStart(10)} ${figure.importMs.toFixed(1).padStart(12)}  ${verdict}`,
    );
  }
  if (missed > 0) {
    console.log(`\n${missed} figure(s) miss their target.`);
    process.exit(1);
  }
  console.log('\nAll figures meet their targets.');
};

await main();
