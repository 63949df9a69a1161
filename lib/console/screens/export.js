// Export archives of a Stack: start, follow, download. The Stack's exports come from the API
// (`GET /v1/stacks/{stackId}/exports`, newest first), so a reload or another browser shows them.
import { ApiError, api } from '../api.js';
import { dateTime, h, label } from '../dom.js';
import { button, dl, errorBox, hashParts, pickStack, poll, say, screen, stackPicker, table } from '../ui.js';

export const exportScreen = async () => {
  const { stacks, chosen } = await pickStack(hashParts()[1]);
  if (!chosen) return screen('Export', h('p', {}, 'No Stack yet.'));
  const { exports } = await api('GET', `/v1/stacks/${chosen.stackId}/exports`);
  const current = exports[0];
  const out = h('div', {});
  /** Shows the chosen Stack again (its address keeps it across a reload). */
  const again = async () => {
    const target = `#/export/${encodeURIComponent(chosen.stackId)}`;
    if (location.hash !== target) location.hash = target;
    else await exportScreen();
  };
  const running = current && ['requested', 'building'].includes(current.status);
  screen(
    `Export ${chosen.name}`,
    stackPicker('export', stacks, chosen),
    h(
      'p',
      {},
      'An export archive holds the Stack’s Event journal and the work of its Threads that never reached a remote (a tar file). The Stack’s Dispatcher builds it; it stays available for 7 days.',
    ),
    current ? exportCard(chosen, current) : h('p', {}, 'No export of this Stack yet.'),
    running
      ? ''
      : chosen.lifecycle === 'torn_down'
        ? // The API refuses `stack_torn_down`: its data is gone.
          h('p', {}, 'This Stack was torn down: there is nothing left to export.')
        : button('Start an export', async () => {
            out.replaceChildren();
            try {
              await api('POST', `/v1/stacks/${chosen.stackId}/exports`, {});
              say('The export has started.');
            } catch (error) {
              // One runs already (started elsewhere): show it rather than an error.
              if (!(error instanceof ApiError && error.code === 'export_in_progress'))
                return out.replaceChildren(errorBox(error));
            }
            await again();
          }),
    out,
    exports.length ? exportsTable(chosen, exports) : '',
  );
  if (running)
    poll(async () => {
      const now = await api('GET', `/v1/stacks/${chosen.stackId}/exports`);
      return JSON.stringify(now.exports[0]) !== JSON.stringify(current);
    }, exportScreen);
};

const sizeText = (/** @type {number | null} */ bytes) =>
  bytes === null || bytes === undefined ? '—' : `${bytes.toLocaleString()} bytes`;

/** Asks for a short-lived download link of a ready export, starts it, and leaves the link in `out`. */
const download = async (/** @type {any} */ stack, /** @type {any} */ e, /** @type {HTMLElement} */ out) => {
  const d = await api(
    'POST',
    `/v1/stacks/${stack.stackId}/exports/${encodeURIComponent(e.exportId)}/download`,
    {},
  );
  out.replaceChildren(
    h(
      'p',
      {},
      `Downloading ${d.fileName}. If it did not start, `,
      h('a', { href: d.url, download: d.fileName }, `download ${d.fileName} again`),
      ` (the link works until ${dateTime(d.expiresAt)}).`,
    ),
  );
  location.assign(d.url);
};

/** The Stack's recent exports, newest first; an older one still ready can be downloaded too. */
const exportsTable = (/** @type {any} */ stack, /** @type {any[]} */ exports) => {
  const out = h('div', {});
  return h(
    'section',
    { 'aria-label': 'Recent exports' },
    h('h3', {}, 'Recent exports'),
    table(
      'Exports of this Stack, newest first',
      ['Requested', 'Status', 'Size', 'Available until', 'Download'],
      exports.map((e, index) => [
        dateTime(e.requestedAt),
        `${label(e.status)}${e.failureReason ? `: ${e.failureReason}` : ''}`,
        sizeText(e.sizeBytes),
        e.availableUntil ? dateTime(e.availableUntil) : '—',
        index === 0
          ? 'See the last export'
          : e.status === 'ready'
            ? button(`Download the export of ${dateTime(e.requestedAt)}`, () => download(stack, e, out))
            : '—',
      ]),
    ),
    out,
  );
};

const exportCard = (/** @type {any} */ stack, /** @type {any} */ e) => {
  const out = h('div', {});
  return h(
    'section',
    { class: 'card', 'aria-label': 'The last export' },
    h('h3', {}, 'The last export'),
    dl([
      ['Status', h('span', { 'data-status': e.status }, label(e.status))],
      ['Requested', dateTime(e.requestedAt)],
      ['Ready', e.readyAt ? dateTime(e.readyAt) : e.status === 'failed' ? 'Never' : 'Not yet'],
      ['Size', sizeText(e.sizeBytes)],
      ['Available until', e.availableUntil ? dateTime(e.availableUntil) : '—'],
      ...(e.failureReason ? [/** @type {[string, string]} */ (['Why it failed', e.failureReason])] : []),
    ]),
    e.status === 'requested' || e.status === 'building'
      ? h('p', {}, 'The Stack’s Dispatcher is building it; this page follows it by itself.')
      : '',
    e.status === 'ready' ? button('Download the archive', () => download(stack, e, out)) : '',
    out,
  );
};
