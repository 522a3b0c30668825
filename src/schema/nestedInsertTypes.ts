// Schema stage, nested inserts (opt-in): a table's relationship fields → the fields its
// `<Table>InsertInput` gains: `<relation>: <Related>ObjRelInsertInput` (`{object}`) for a to-one
// relationship, `<relation>: <Related>ArrRelInsertInput` (`{objects}`) for a to-many one.

import { GraphQLInputObjectType, GraphQLList, GraphQLNonNull, type GraphQLInputFieldConfigMap } from "graphql";
import type { RelationField } from "./relationFields";
import { inputResolved, sourced } from "./resolution";
import type { TableTypes } from "./tableTypes";

export type NestedKind = "objRel" | "arrRel";

/** One related row (a to-one relationship) or a list of them (to-many). */
export function nestedKind(field: Pick<RelationField, "relation">): NestedKind {
  return field.relation.cardinality === "toOne" ? "objRel" : "arrRel";
}

/**
 * Whether a nested insert may go through the relationship: the role may insert into the related
 * table and write every column of the foreign key, which the insert fills from the other end.
 */
export function nestable(field: RelationField, target: TableTypes | undefined): boolean {
  if (target?.insertInput === null || target === undefined) return false;
  const { relation, side } = field;
  const holder = side === "parent" ? relation.from : relation.to;
  const keyColumns = side === "parent" ? relation.fromColumns : relation.toColumns;
  return keyColumns.every((name) => {
    const column = holder.columns.find((c) => c.name === name);
    return column !== undefined && column.privileges.insert && !column.isGenerated;
  });
}

/** `<Related>ObjRelInsertInput` or `<Related>ArrRelInsertInput` of a table the role may insert into. */
export function nestedInsertType(target: TableTypes, kind: NestedKind): GraphQLInputObjectType {
  const input = new GraphQLNonNull(target.insertInput!);
  return kind === "objRel"
    ? new GraphQLInputObjectType({
        name: `${target.base}ObjRelInsertInput`,
        description: `A \`${target.base}\` record inserted with the record that relates to it`,
        fields: { object: { type: input } },
        extensions: sourced({ kind: "objRelInsertInput", table: target.table }),
      })
    : new GraphQLInputObjectType({
        name: `${target.base}ArrRelInsertInput`,
        description: `\`${target.base}\` records inserted with the record they relate to`,
        fields: { objects: { type: new GraphQLNonNull(new GraphQLList(input)) } },
        extensions: sourced({ kind: "arrRelInsertInput", table: target.table }),
      });
}

export interface NestedInsertLookup {
  table(oid: number): TableTypes | undefined;
  /** The related table's wrapper type, or null when its name is taken. */
  wrapper(oid: number, kind: NestedKind): GraphQLInputObjectType | null;
}

/** The relationship fields of a `<Table>InsertInput`. */
export function nestedInsertFields(relations: readonly RelationField[], lookup: NestedInsertLookup): GraphQLInputFieldConfigMap {
  const fields: GraphQLInputFieldConfigMap = {};
  for (const field of relations) {
    const target = lookup.table(field.relation.to.oid);
    if (!nestable(field, target)) continue;
    const type = lookup.wrapper(field.relation.to.oid, nestedKind(field));
    if (type === null) continue;
    fields[field.name] = {
      type,
      description:
        field.side === "parent"
          ? `Inserts the related \`${target!.base}\` record first and refers to it`
          : `Inserts related \`${target!.base}\` records after this one, referring to it`,
      extensions: inputResolved({ kind: "insertRelation", relation: field.relation, side: field.side }),
    };
  }
  return fields;
}
