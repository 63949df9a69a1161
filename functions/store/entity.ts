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
 * type, primary key, index keys, schema, and the item builder and reads made from them. A store
 * module's writes and transactions take keys and items from here; nothing else builds them.
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
  const collection = definition.collection ?? (noCollection as (...scope: Scope) => Collection);
  /** A new item: its key, its type, then its attributes. */
  const item = <Attributes extends Partial<v.InferInput<Schema>> & Record<string, unknown>>(
    args: Args,
    attributes: Attributes,
  ): Flat<Key & { type: Type } & Attributes> => ({ ...key(...args), type, ...attributes });
  return {
    type,
    schema,
    key,
    index: definition.indexes ?? ({} as Indexes),
    collection,
    item,
    /** The new item as a transaction's Put, written only where no item stands yet. */
    create: (
      args: Args,
      attributes: Partial<v.InferInput<Schema>> & Record<string, unknown>,
    ): { Put: CreatePut } => ({
      Put: {
        TableName: tableName(),
        Item: item(args, attributes),
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    }),
    /** One item (read consistently), or undefined. */
    get: (...args: Args): Promise<v.InferOutput<Schema> | undefined> => getItem(key(...args), schema),
    /** Every item of one collection, in sort-key order (read consistently). */
    list: (...scope: Scope): Promise<v.InferOutput<Schema>[]> => {
      const { PK, prefix } = collection(...scope);
      return queryPrefix(PK, prefix, schema);
    },
    /** A raw item (from a query, an index, a returned value) read as the entity. */
    parse: (raw: unknown): v.InferOutput<Schema> => v.parse(schema, raw),
  };
};
