// Schema stage, mutations: one table's types → its insert, update and delete fields on Mutation,
// each where the role holds the privilege (the table's types exist only then).

import { GraphQLInt, GraphQLList, GraphQLNonNull, type GraphQLFieldConfigArgumentMap, type GraphQLFieldConfigMap } from "graphql";
import { resolved } from "./resolution";
import type { TableTypes } from "./tableTypes";

export function addMutationFields(
  t: TableTypes,
  fields: GraphQLFieldConfigMap<unknown, unknown>,
  insertArgs: GraphQLFieldConfigArgumentMap,
): void {
  const filterArg = {
    type: t.filter,
    description: "Restricts the mutation's impact to records matching the criteria",
  };
  const atMostArg = {
    type: new GraphQLNonNull(GraphQLInt),
    defaultValue: 1,
    description: "The maximum number of records in the collection permitted to be affected",
  };
  const collection = `${t.base}Collection`;
  if (t.insertInput !== null && t.insertResponse !== null) {
    fields[`insertInto${collection}`] = {
      type: t.insertResponse,
      description: `Adds one or more \`${t.base}\` records to the collection`,
      args: { objects: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(t.insertInput))) }, ...insertArgs },
      extensions: resolved({ kind: "insert", table: t.table }),
    };
  }
  if (t.updateInput !== null && t.updateResponse !== null) {
    fields[`update${collection}`] = {
      type: new GraphQLNonNull(t.updateResponse),
      description: `Updates zero or more records in the \`${t.base}\` collection`,
      args: {
        set: {
          type: new GraphQLNonNull(t.updateInput),
          description: "Fields that are set will be updated for all records matching the `filter`",
        },
        filter: filterArg,
        atMost: atMostArg,
      },
      extensions: resolved({ kind: "update", table: t.table }),
    };
  }
  if (t.deleteResponse !== null) {
    fields[`deleteFrom${collection}`] = {
      type: new GraphQLNonNull(t.deleteResponse),
      description: `Deletes zero or more records from the \`${t.base}\` collection`,
      args: { filter: filterArg, atMost: atMostArg },
      extensions: resolved({ kind: "delete", table: t.table }),
    };
  }
}
