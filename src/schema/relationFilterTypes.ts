// Schema stage, filters across relationships (opt-in): a table's relationship fields → the fields
// its `<Table>Filter` gains (a to-one relationship takes the related table's filter, a to-many one
// a `<Related>RelationFilter` of `some`, `every` and `none`).

import { GraphQLInputObjectType, type GraphQLInputFieldConfigMap } from "graphql";
import type { RelationField } from "./relationFields";
import { inputResolved, sourced, type RelationQuantifier } from "./resolution";
import type { TableTypes } from "./tableTypes";

const QUANTIFIERS: Record<RelationQuantifier, string> = {
  some: "True when at least one related record matches the filter",
  every: "True when every related record matches the filter (and when there is none)",
  none: "True when no related record matches the filter",
};

/** `<Related>RelationFilter`: how a to-many relationship's records must match. */
export function relationFilterType(target: TableTypes): GraphQLInputObjectType {
  return new GraphQLInputObjectType({
    name: `${target.base}RelationFilter`,
    description: `Filters a record by its related \`${target.base}\` records`,
    fields: () => {
      const fields: GraphQLInputFieldConfigMap = {};
      for (const [quantifier, description] of Object.entries(QUANTIFIERS)) {
        fields[quantifier] = {
          type: target.filter,
          description,
          extensions: inputResolved({ kind: "relationQuantifier", quantifier: quantifier as RelationQuantifier }),
        };
      }
      return fields;
    },
    extensions: sourced({ kind: "relationFilter", table: target.table }),
  });
}

export interface RelationFilterLookup {
  table(oid: number): TableTypes | undefined;
  /** The target's `<Related>RelationFilter`, or null when its name is taken. */
  relationFilter(oid: number): GraphQLInputObjectType | null;
}

/** The relationship fields of a `<Table>Filter`. */
export function relationFilterFields(relations: readonly RelationField[], lookup: RelationFilterLookup): GraphQLInputFieldConfigMap {
  const fields: GraphQLInputFieldConfigMap = {};
  for (const { name, relation } of relations) {
    const target = lookup.table(relation.to.oid);
    if (target === undefined) continue;
    const type = relation.cardinality === "toOne" ? target.filter : lookup.relationFilter(relation.to.oid);
    if (type === null) continue;
    fields[name] = {
      type,
      description:
        relation.cardinality === "toOne"
          ? `True when the related \`${target.base}\` record exists and matches the filter`
          : `Filters by the related \`${target.base}\` records`,
      extensions: inputResolved({ kind: "relationFilter", relation }),
    };
  }
  return fields;
}
