// Schema stage, upserts (opt-in): one table → the `onConflict` argument of its insert field and its
// types: `<Table>OnConflict`, `<Table>UniqueConstraint` (the constraints an insert may arbitrate
// on) and `<Table>UpdateField` (the fields a conflicting row may take from the proposed one).

import { GraphQLEnumType, GraphQLInputObjectType, GraphQLList, GraphQLNonNull, type GraphQLEnumValueConfigMap } from "graphql";
import type { Column } from "../catalog/model";
import { isValidName } from "./inflection";
import { sourced } from "./resolution";
import type { TableTypes } from "./tableTypes";

/** GraphQL reads these as literals, never as enum values. */
const NOT_ENUM_VALUES = new Set(["true", "false", "null"]);

export interface UpsertTypes {
  readonly onConflict: GraphQLInputObjectType;
  readonly uniqueConstraint: GraphQLEnumType;
  readonly updateField: GraphQLEnumType;
}

export const UPSERT_TYPE_SUFFIXES = ["OnConflict", "UniqueConstraint", "UpdateField"];

/**
 * Non-deferrable primary key and unique constraints whose names GraphQL can carry and whose
 * columns the role may read (PostgreSQL needs SELECT on an arbiter's columns, even to do nothing).
 */
function arbiters(t: TableTypes): string[] {
  const readable = (name: string) => t.table.columns.some((c) => c.name === name && c.privileges.select);
  const names = t.table.uniqueIndexes.flatMap((i) =>
    i.constraint !== undefined && !i.constraint.deferrable && !i.isPartial && i.columns.every(readable) ? [i.constraint.name] : [],
  );
  return names.filter((n) => isValidName(n) && !NOT_ENUM_VALUES.has(n)).sort();
}

/** Fields the role may both update and read (the update reads the proposed row's value). */
function updatable(t: TableTypes): Column[] {
  return t.columns.filter((c) => c.privileges.update && !c.isSerial && !c.isGenerated);
}

/**
 * The types, or null where no upsert is offered: only on tables the role may insert into, with a
 * constraint to arbitrate on and a field to update (GraphQL has no empty enums).
 */
export function upsertTypes(t: TableTypes): UpsertTypes | null {
  if (t.table.kind !== "table" || t.insertInput === null) return null;
  const constraints = arbiters(t);
  const fields = updatable(t);
  if (constraints.length === 0 || fields.length === 0) return null;
  const constraintValues: GraphQLEnumValueConfigMap = {};
  for (const name of constraints) constraintValues[name] = { value: name };
  const uniqueConstraint = new GraphQLEnumType({
    name: `${t.base}UniqueConstraint`,
    description: `Unique and primary key constraints of \`${t.base}\` an insert may resolve conflicts on`,
    values: constraintValues,
    extensions: sourced({ kind: "uniqueConstraint", table: t.table }),
  });
  const fieldValues: GraphQLEnumValueConfigMap = {};
  for (const column of fields) fieldValues[t.inflector.column(column)] = { value: column.name };
  const updateField = new GraphQLEnumType({
    name: `${t.base}UpdateField`,
    description: `Fields of \`${t.base}\` a conflicting record may take from the inserted one`,
    values: fieldValues,
    extensions: sourced({ kind: "updateField", table: t.table }),
  });
  const onConflict = new GraphQLInputObjectType({
    name: `${t.base}OnConflict`,
    description: `What an insert into \`${t.base}\` does with a record that conflicts with an existing one`,
    fields: () => ({
      constraint: { type: new GraphQLNonNull(uniqueConstraint), description: "The constraint the conflict is on" },
      updateFields: {
        type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(updateField))),
        description: "Fields the existing record takes from the inserted one; none leaves it as it is",
      },
      filter: { type: t.filter, description: "Updates only existing records matching the filter; the others are left as they are" },
    }),
    extensions: sourced({ kind: "onConflict", table: t.table }),
  });
  return { onConflict, uniqueConstraint, updateField };
}
