// Schema stage, aggregates: one table's columns → its `<Table>Aggregate` type (count, and sum, avg,
// min and max over the columns each applies to) and the result types of each operation.

import { GraphQLInt, GraphQLNonNull, GraphQLObjectType, type GraphQLFieldConfigMap } from "graphql";
import type { Column, Table } from "../catalog/model";
import type { Inflector } from "./inflection";
import { resolved, sourced, type AggregateOp } from "./resolution";
import type { ScalarName, TypeShape } from "./scalars";
import type { SharedTypes } from "./sharedTypes";
import type { LeafTypes } from "./tableTypes";

function scalarOf(shape: TypeShape): ScalarName | null {
  return shape.kind === "scalar" ? shape.scalar : null;
}

const SUMMABLE: ReadonlySet<ScalarName> = new Set(["Int", "BigInt", "Float", "BigFloat"]);
const COMPARABLE: ReadonlySet<ScalarName> = new Set([
  "Int",
  "BigInt",
  "Float",
  "BigFloat",
  "String",
  "Date",
  "Time",
  "Datetime",
]);

export function buildAggregate(
  table: Table,
  base: string,
  columns: readonly Column[],
  inflector: Inflector,
  shared: SharedTypes,
  types: LeafTypes,
): { type: GraphQLObjectType; all: GraphQLObjectType[] } {
  const results: GraphQLObjectType[] = [];
  const opType = (
    op: AggregateOp,
    suffix: string,
    typeDescription: string,
    fieldDescription: (name: string) => string,
    eligible: ReadonlySet<ScalarName>,
  ) => {
    const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
    for (const column of columns) {
      const scalar = scalarOf(types.shape(column));
      if (scalar === null || !eligible.has(scalar)) continue;
      let out: ScalarName = scalar;
      if (op === "avg") out = "BigFloat";
      else if (op === "sum") out = scalar === "Int" || scalar === "BigInt" ? "BigInt" : "BigFloat";
      const name = inflector.column(column);
      fields[name] = {
        type: shared.scalars[out],
        description: fieldDescription(name),
        extensions: resolved({ kind: "aggregateColumn", op, column }),
      };
    }
    if (Object.keys(fields).length === 0) return null;
    const type = new GraphQLObjectType({
      name: `${base}${suffix}AggregateResult`,
      description: typeDescription,
      fields,
      extensions: sourced({ kind: "aggregateFields", table, op }),
    });
    results.push(type);
    return type;
  };
  const sum = opType("sum", "Sum", `Result of summation aggregation for \`${base}\``, (n) => `Sum of ${n} values`, SUMMABLE);
  const avg = opType("avg", "Avg", `Result of average aggregation for \`${base}\``, (n) => `Average of ${n} values`, SUMMABLE);
  const min = opType("min", "Min", `Result of minimum aggregation for \`${base}\``, (n) => `Minimum ${n} value`, COMPARABLE);
  const max = opType("max", "Max", `Result of maximum aggregation for \`${base}\``, (n) => `Maximum ${n} value`, COMPARABLE);
  const fields: GraphQLFieldConfigMap<unknown, unknown> = {
    count: {
      type: new GraphQLNonNull(GraphQLInt),
      description: "The number of records matching the query",
      extensions: resolved({ kind: "aggregateCount" }),
    },
  };
  const add = (name: AggregateOp, type: GraphQLObjectType | null, description: string) => {
    if (type !== null) {
      fields[name] = { type, description, extensions: resolved({ kind: "aggregateOp", op: name, table }) };
    }
  };
  add("sum", sum, `Summation aggregates for \`${base}\``);
  add("avg", avg, `Average aggregates for \`${base}\``);
  add("min", min, "Minimum aggregates for comparable fields");
  add("max", max, "Maximum aggregates for comparable fields");
  const type = new GraphQLObjectType({
    name: `${base}Aggregate`,
    description: `Aggregate results for \`${base}\``,
    fields,
    extensions: sourced({ kind: "aggregate", table }),
  });
  return { type, all: [type, ...results] };
}
