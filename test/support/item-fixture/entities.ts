import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { keys } from '#store/keys.ts';

/**
 * The entities of the single table, as the store names them: every builder of `keys`
 * (functions/store/keys.ts) that makes a whole item key (PK and SK) is one entity, named after
 * it. The fixture of old items (test/fixtures/items/) holds items of each, and the test of old
 * items (test/integration/old-items.test.ts) fails when an entity has none.
 */

/** The folder of fixture generations: one folder per generation, one file per entity in it. */
export const FIXTURE_ROOT = path.join(import.meta.dirname, '..', '..', 'fixtures', 'items');

/** One stored item of a fixture file: what it shows (its state), and the item as DynamoDB returned it. */
export interface FixtureItem {
  state: string;
  /** The item in DynamoDB's own JSON (attribute values with their types: `{ "S": ... }`, `{ "SS": [...] }`). */
  item: Record<string, unknown>;
}

/** A fixture file: the items of one entity, as today's builders wrote them at `writtenAt`. */
export interface FixtureFile {
  entity: string;
  writtenAt: string;
  commit: string;
  writtenBy: string;
  items: FixtureItem[];
}

/** A stand-in for a builder's arguments that no real key contains. */
const HOLE = '\u0001';

const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The key shapes of the entities: a builder called with holes, its holes turned into wildcards. */
const entityPatterns = (): { entity: string; pk: RegExp; sk: RegExp }[] =>
  Object.entries(keys).flatMap(([entity, builder]) => {
    if (typeof builder !== 'function') return [];
    const key = (builder as (...args: string[]) => unknown)(HOLE, HOLE, HOLE) as Record<string, unknown>;
    if (typeof key?.PK !== 'string' || typeof key?.SK !== 'string') return [];
    const pattern = (text: string) => new RegExp(`^${literally(text).replaceAll(HOLE, '(.+)')}$`);
    return [{ entity, pk: pattern(key.PK), sk: pattern(key.SK) }];
  });

/** Every entity the store keys today (names of `keys` builders), sorted. */
export const storeEntities = (): string[] =>
  entityPatterns()
    .map(({ entity }) => entity)
    .sort();

/** The entity an item's key belongs to; throws unless exactly one entity's key shape fits. */
export const entityOf = (pk: string, sk: string): string => {
  const fits = entityPatterns().filter((shape) => shape.pk.test(pk) && shape.sk.test(sk));
  if (fits.length !== 1)
    throw new Error(
      `item ${pk} / ${sk} fits ${fits.length} entities (${fits.map((f) => f.entity).join(', ')})`,
    );
  return fits[0]?.entity ?? '';
};

/**
 * Every `type` value the store's builders write: the string literals given to `type` (puts) and
 * `:type` (updates) in functions/store/*.ts.
 */
export const storeTypeValues = (): string[] => {
  const folder = path.join(import.meta.dirname, '..', '..', '..', 'functions', 'store');
  const found = new Set<string>();
  for (const file of readdirSync(folder).filter((name) => name.endsWith('.ts'))) {
    const source = readFileSync(path.join(folder, file), 'utf8');
    for (const match of source.matchAll(/(?:\btype|':type'): '([a-z_]+)'/g))
      if (match[1]) found.add(match[1]);
  }
  return [...found].sort();
};

/** Every fixture generation (folder names, oldest first) and its files. */
export const fixtureGenerations = (): { generation: string; files: FixtureFile[] }[] =>
  readdirSync(FIXTURE_ROOT, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((generation) => ({
      generation,
      files: readdirSync(path.join(FIXTURE_ROOT, generation))
        .filter((name) => name.endsWith('.json'))
        .sort()
        .map(
          (name) =>
            JSON.parse(readFileSync(path.join(FIXTURE_ROOT, generation, name), 'utf8')) as FixtureFile,
        ),
    }));
