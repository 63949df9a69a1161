import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { routes, servedPaths } from '../../lib/routes.ts';
import {
  describeInChromium,
  newConsolePage,
  SHOTS,
  seriousAxeViolations,
} from '../support/console-browser.ts';
import { sharedCloud } from '../support/local-cloud.ts';

/**
 * The API reference at /docs on `npm start`: Scalar's bundled page over our own document, every
 * operation listed, nothing fetched from anywhere but the site, and axe-core's verdict on every
 * operation drawn, in both colour schemes: our colours (lib/reference/reference.css) keep every
 * text at 4.5:1, and lib/reference/reference.js names Scalar's icon-only copy buttons.
 */
const openapi = JSON.parse(readFileSync(new URL('../../docs/api/openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, unknown>>;
};

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

  it.each(['light', 'dark'] as const)(
    'every operation drawn, in %s mode: no serious or critical axe violation',
    async (colorScheme) => {
      const server = sharedCloud();
      const page = await newConsolePage(browser());
      // Scalar follows the system's colour scheme until the reader picks one with its toggle.
      await page.emulateMedia({ colorScheme });
      await page.goto(`${server.url}/docs`);
      await page.waitForSelector('[class*="sidebar"] li', { timeout: 60_000 });
      // Scalar draws an operation when it scrolls into view (a placeholder until then): bring each
      // operation of the document into view and wait until it is drawn, so axe sees all of them.
      const operations = Object.entries(openapi.paths).flatMap(([documented, methods]) =>
        Object.keys(methods).map((method) => `/${method.toUpperCase()}${documented}`),
      );
      expect(operations.length).toBeGreaterThanOrEqual(routes.length);
      for (const operation of operations) {
        const found = await page.evaluate((suffix) => {
          // biome-ignore lint/suspicious/noExplicitAny: this runs in the page
          const inPage = (globalThis as any).document;
          const found = [...inPage.querySelectorAll('[id]')].find((element) => element.id.endsWith(suffix));
          found?.scrollIntoView();
          return Boolean(found);
        }, operation);
        expect(found, `${operation} is on the page`).toBe(true);
        await page.waitForFunction(
          (suffix) =>
            // biome-ignore lint/suspicious/noExplicitAny: this runs in the page
            [...(globalThis as any).document.querySelectorAll('section[id]')].some((element) =>
              element.id.endsWith(suffix),
            ),
          operation,
          { timeout: 30_000 },
        );
      }
      expect(
        await page.evaluate(
          // biome-ignore lint/suspicious/noExplicitAny: this runs in the page
          (mode) => (globalThis as any).document.body.classList.contains(`${mode}-mode`),
          colorScheme,
        ),
      ).toBe(true);
      expect(await seriousAxeViolations(page)).toEqual([]);
    },
    400_000,
  );
});
