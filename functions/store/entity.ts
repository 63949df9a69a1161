import * as v from 'valibot';
import { getItem, queryPrefix, tableName } from './client.ts';

/** An item's primary key in the one table. */
export interface Key {
  PK: string;
  SK: string;
}

/** Where the items of one entity stand together: one partition, the sort keys under one prefix. */
export interface Collection {
  PK: string;
  prefix: string;
}

/** An object type written out (so that it has an index signature, as an item needs). */
type Flat<T> = { [K in keyof T]: T[K] };

/** A sparse index's keys for one item (an item carries them only while it belongs in the index). */
type IndexKeys = Record<string, string>;

interface Definition<
  Type extends string,
  Args extends unknown[],
  Schema extends v.GenericSchema,
  Scope extends unknown[],
  Indexes extends Record<string, (...args: never[]) => IndexKeys>,
> {
  /** The item's `type` attribute: what the item is, for anyone reading the table. */
  type: Type;
  /** The primary key, from the ids that name one item. */
  key: (...args: Args) => Key;
  /** What a stored item holds; every read is parsed with it. */
  schema: Schema;
  /** The items of the entity that stand together (a tenant's Stacks, a Stack's Credentials). */
  collection?: (...scope: Scope) => Collection;
  /** The keys of the sparse indexes the entity's items join (`TABLE_DEFINITION`'s GSI1, GSI2). */
  indexes?: Indexes;
}

interface CreatePut {
  TableName: string;
  Item: Record<string, unknown>;
  ConditionExpression: string;
}

const noCollection = (): Collection => {
  throw new Error('this entity has no collection');
};

/**
 * One kind of item of the single table, declared once, the way ElectroDB declares an entity: its
 * type, primary key, index keys, collection and schema, and the item builder made from them. A
 * store module's writes and transactions take keys and items from here; nothing else builds them.
 * The reads and the conditional create are functions of their own (`getOne`, `listAll`,
 * `createPut`), not methods: esbuild keeps in a Lambda's bundle only the requests its code can
 * make, and the least-privilege test reads each function's table actions from its bundle.
 */
export const entity = <
  Type extends string,
  Args extends unknown[],
  Schema extends v.GenericSchema,
  Scope extends unknown[] = [],
  Indexes extends Record<string, (...args: never[]) => IndexKeys> = Record<never, never>,
>(
  definition: Definition<Type, Args, Schema, Scope, Indexes>,
) => {
  const { type, key, schema } = definition;
  return {
    type,
    schema,
    key,
    index: definition.indexes ?? ({} as Indexes),
    collection: definition.collection ?? (noCollection as (...scope: Scope) => Collection),
    /** A new item: its key, its type, then its attributes. */
    item: <Attributes extends Partial<v.InferInput<Schema>> & Record<string, unknown>>(
      args: Args,
      attributes: Attributes,
    ): Flat<Key & { type: Type } & Attributes> => ({ ...key(...args), type, ...attributes }),
    /** A raw item (from a query, an index, a returned value) read as the entity. */
    parse: (raw: unknown): v.InferOutput<Schema> => v.parse(schema, raw),
  };
};

/** What the reads need of an entity: its key, collection and schema. */
interface Readable<Args extends unknown[], Scope extends unknown[], Schema extends v.GenericSchema> {
  key: (...args: Args) => Key;
  collection: (...scope: Scope) => Collection;
  schema: Schema;
}

/** One item of the entity (read consistently), or undefined. */
export const getOne = <Args extends unknown[], Schema extends v.GenericSchema>(
  of: Pick<Readable<Args, never, Schema>, 'key' | 'schema'>,
  ...args: Args
): Promise<v.InferOutput<Schema> | undefined> => getItem(of.key(...args), of.schema);

/** Every item of one of the entity's collections, in sort-key order (read consistently). */
export const listAll = <Scope extends unknown[], Schema extends v.GenericSchema>(
  of: Pick<Readable<never, Scope, Schema>, 'collection' | 'schema'>,
  ...scope: Scope
): Promise<v.InferOutput<Schema>[]> => {
  const { PK, prefix } = of.collection(...scope);
  return queryPrefix(PK, prefix, of.schema);
};

/** A new item of the entity as a transaction's Put, written only where no item stands yet. */
export const createPut = <Args extends unknown[], Attributes extends Record<string, unknown>>(
  of: { item: (args: Args, attributes: Attributes) => Record<string, unknown> },
  args: Args,
  attributes: Attributes,
): { Put: CreatePut } => ({
  Put: {
    TableName: tableName(),
    Item: of.item(args, attributes),
    ConditionExpression: 'attribute_not_exists(PK)',
  },
});
