// Small DOM helpers: text goes in as text nodes only, never as markup.

/**
 * @param {string} tag
 * @param {Record<string, string>} attributes
 * @param {(Node | string)[]} children
 * @returns {HTMLElement}
 */
export const h = (tag, attributes, ...children) => {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  element.append(...children);
  return element;
};

/**
 * An option of a select, chosen when `selected` (its `selected` attribute, so a form reset keeps it).
 * @param {string} value
 * @param {string} text
 * @param {boolean} selected
 */
export const option = (value, text, selected) =>
  h('option', selected ? { value, selected: '' } : { value }, text);

/**
 * A visible label for a form control; the control must carry an id.
 * @param {string} text
 * @param {HTMLElement} control
 */
export const labelFor = (text, control) => {
  const element = h('label', { for: control.id }, text);
  return h('div', {}, element, control);
};

/**
 * A machine value in words (`waiting_for_work` → `waiting for work`); with a control, a label.
 * @param {any} value
 * @param {HTMLElement} [control]
 * @returns {any}
 */
export const label = (value, control) => {
  if (control) return labelFor(String(value), control);
  if (value === null || value === undefined) return '—';
  return String(value).replaceAll('_', ' ');
};

/** @param {{ amount: number, currency: string }} price */
export const money = (price) =>
  new Intl.NumberFormat(undefined, { style: 'currency', currency: price.currency.toUpperCase() }).format(
    price.amount / 100,
  );

/** A date and time in the browser's own time zone, with the zone named. @param {string} iso */
export const dateTime = (iso) =>
  new Date(iso).toLocaleString(undefined, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZoneName: 'short',
  });

/** A day in the browser's own words and zone (invoices and their lines are dated, not timed). @param {string} iso */
export const day = (iso) =>
  new Date(iso).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });

/**
 * A count and its noun, written out: `1 Stack`, `2 Stacks`, `1 run at once` (`plural` when not `-s`).
 * @param {number} count
 * @param {string} one
 * @param {string} [many]
 */
export const count = (count, one, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;
