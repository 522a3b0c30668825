// Schema stage, ordering by related columns (opt-in): a table's to-one relationship fields → the
// fields its `<Table>OrderBy` gains, each taking the related table's `<Related>OrderBy`.

import type { GraphQLInputFieldConfigMap } from "graphql";
import type { RelationField } from "./relationFields";
import { inputResolved } from "./resolution";
import type { TableTypes } from "./tableTypes";

export function relationOrderByFields(
  relations: readonly RelationField[],
  table: (oid: number) => TableTypes | undefined,
): GraphQLInputFieldConfigMap {
  const fields: GraphQLInputFieldConfigMap = {};
  for (const { name, relation } of relations) {
    if (relation.cardinality !== "toOne") continue;
    const target = table(relation.to.oid);
    if (target === undefined) continue;
    fields[name] = {
      type: target.orderBy,
      description: `Orders by one column of the related \`${target.base}\` record (a missing one sorts as null)`,
      extensions: inputResolved({ kind: "orderByRelation", relation }),
    };
  }
  return fields;
}
