/**
 * Stripe's request encoding: `application/x-www-form-urlencoded` with bracket paths, e.g.
 * `line_items[0][price]=price_1&metadata[tenantId]=t1&expand[]=x`. Values stay strings.
 */
export type FormValue = string | FormValue[] | { [key: string]: FormValue };
export type FormObject = { [key: string]: FormValue };

const setPath = (target: FormObject | FormValue[], path: string[], value: string): void => {
  const [head, ...rest] = path;
  if (head === undefined) return;
  const container = target as Record<string, FormValue>;
  const key = head === '' && Array.isArray(target) ? String(target.length) : head;
  if (rest.length === 0) {
    container[key] = value;
    return;
  }
  const nextIsIndex = rest[0] === '' || /^\d+$/.test(rest[0] ?? '');
  container[key] ??= nextIsIndex ? [] : {};
  setPath(container[key] as FormObject | FormValue[], rest, value);
};

export const parseForm = (text: string): FormObject => {
  const result: FormObject = {};
  for (const [rawKey, value] of new URLSearchParams(text)) {
    const match = /^([^[]+)((?:\[[^\]]*\])*)$/.exec(rawKey);
    if (!match?.[1]) continue;
    const path = [match[1], ...[...(match[2] ?? '').matchAll(/\[([^\]]*)\]/g)].map((m) => m[1] ?? '')];
    setPath(result, path, value);
  }
  return result;
};

/** Typed readers for parsed form values. */
export const str = (value: FormValue | undefined): string | undefined =>
  typeof value === 'string' ? value : undefined;
export const int = (value: FormValue | undefined): number | undefined => {
  const text = str(value);
  return text === undefined || text === '' ? undefined : Number.parseInt(text, 10);
};
export const bool = (value: FormValue | undefined): boolean | undefined =>
  str(value) === undefined ? undefined : str(value) === 'true';
export const obj = (value: FormValue | undefined): FormObject =>
  value !== undefined && typeof value === 'object' && !Array.isArray(value) ? value : {};
export const list = (value: FormValue | undefined): FormValue[] => {
  if (Array.isArray(value)) return value;
  // Arrays sent with explicit indices arrive as objects keyed "0", "1", ...
  if (value !== undefined && typeof value === 'object') {
    return Object.keys(value)
      .sort((a, b) => Number(a) - Number(b))
      .map((key) => (value as FormObject)[key] as FormValue);
  }
  return [];
};
export const stringMap = (value: FormValue | undefined): Record<string, string> =>
  Object.fromEntries(
    Object.entries(obj(value)).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
