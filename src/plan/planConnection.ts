// Plan stage: a connection field (its arguments + selections on the Connection type) → a
// ConnectionPlan: pagination window, order with primary-key tiebreaker, cursors, filter, fields.

import {
  GraphQLObjectType,
  getNamedType,
  isInputObjectType,
  type GraphQLField,
  type SelectionSetNode,
} from "graphql";
import { DEFAULT_MAX_ROWS } from "../catalog/directives";
import type { Table } from "../catalog/model";
import type { InputValue } from "../document/inputValue";
import { UserError } from "../document/UserError";
import { inputResolutionOf } from "../schema/resolution";
import { param, pgType, type ParamNode } from "../sql/ast";
import { decodeBase64 } from "../util/base64";
import { coerceInput, type Coerced } from "./coerceInput";
import { argDef, type PlanContext } from "./context";
import { planFilter } from "./planFilter";
import { keyItemText, parseKeyArray } from "./parseKeyArray";
import { planConnectionFields } from "./planConnectionFields";
import { sqlTypeOf } from "./valueParams";
import type { ConnectionPlan, ConnectionSource, CursorPlan, OrderPlan } from "./types";

export function maxRowsOf(ctx: PlanContext, table: Table): number {
  if (table.directives.maxRows !== undefined) return table.directives.maxRows;
  const schema = ctx.api.catalog.schemas.find((s) => s.name === table.schema);
  return schema?.directives.maxRows ?? ctx.api.settings.maxRows ?? DEFAULT_MAX_ROWS;
}

function intArg(def: GraphQLField<unknown, unknown>, args: Map<string, InputValue>, name: string): number | null {
  if (!args.has(name)) return null;
  const v = coerceInput(args.get(name), argDef(def, name).type);
  return v === null ? null : (v as number);
}

function cursorArg(def: GraphQLField<unknown, unknown>, args: Map<string, InputValue>, name: string): string | null {
  if (!args.has(name)) return null;
  const v = coerceInput(args.get(name), argDef(def, name).type);
  return v === null ? null : String(v);
}

export function planConnection(
  ctx: PlanContext,
  type: GraphQLObjectType,
  table: Table,
  selectionSets: readonly SelectionSetNode[],
  args: Map<string, InputValue>,
  def: GraphQLField<unknown, unknown>,
  source: ConnectionSource,
): ConnectionPlan {
  const first = intArg(def, args, "first");
  const last = intArg(def, args, "last");
  const offset = intArg(def, args, "offset");
  const after = cursorArg(def, args, "after");
  const before = cursorArg(def, args, "before");

  if (first !== null && last !== null) throw new UserError('only one of "first" and "last" may be provided');
  if (before !== null && after !== null) throw new UserError('only one of "before" and "after" may be provided');
  if (first !== null && before !== null) throw new UserError('"first" may only be used with "after"');
  if (last !== null && after !== null) throw new UserError('"last" may only be used with "before"');
  if (offset !== null && (last !== null || before !== null)) {
    throw new UserError('"offset" may only be used with "first" and "after"');
  }
  for (const [name, value] of [["first", first], ["last", last], ["offset", offset]] as const) {
    if (value !== null && value < 0) throw new UserError(`\`${name}\` must be an unsigned integer`);
  }

  const maxRows = maxRowsOf(ctx, table);
  const requested = first ?? last;
  const pageSize = requested === null ? maxRows : Math.min(requested, maxRows);
  const backward = last !== null || before !== null;

  const order = planOrder(def, args, table);
  const int4 = pgType("int4");

  const fields = planConnectionFields(ctx, type, table, selectionSets);

  return {
    table,
    source,
    filter: args.has("filter") ? planFilter(ctx, table, coerceInput(args.get("filter"), argDef(def, "filter").type), argDef(def, "filter").type) : null,
    order,
    backward,
    pageSize: param(String(pageSize), int4),
    offset: offset !== null && offset > 0 ? param(String(offset), int4) : null,
    after: after !== null ? decodeCursor(ctx, table, order, after) : null,
    before: before !== null ? decodeCursor(ctx, table, order, before) : null,
    fields,
  };
}

const DIRECTIONS: Record<string, Pick<OrderPlan, "direction" | "nulls">> = {
  AscNullsFirst: { direction: "asc", nulls: "first" },
  AscNullsLast: { direction: "asc", nulls: "last" },
  DescNullsFirst: { direction: "desc", nulls: "first" },
  DescNullsLast: { direction: "desc", nulls: "last" },
};

function planOrder(def: GraphQLField<unknown, unknown>, args: Map<string, InputValue>, table: Table): OrderPlan[] {
  const order: OrderPlan[] = [];
  if (args.has("orderBy")) {
    const orderArg = argDef(def, "orderBy");
    const value = coerceInput(args.get("orderBy"), orderArg.type);
    const elementType = getNamedType(orderArg.type);
    const fields = isInputObjectType(elementType) ? elementType.getFields() : {};
    for (const item of (value as Coerced[] | null) ?? []) {
      if (item === null || typeof item !== "object" || Array.isArray(item)) continue;
      for (const [key, direction] of Object.entries(item)) {
        const field = fields[key];
        const res = field ? inputResolutionOf(field) : undefined;
        if (!res || res.kind !== "orderByColumn" || typeof direction !== "string") continue;
        const dir = DIRECTIONS[direction];
        if (!dir) continue;
        order.push({ column: res.column.name, ...dir });
      }
    }
  }
  // The key always closes the order (even when already in it): cursors carry it at the end.
  for (const pk of table.primaryKey) order.push({ column: pk, direction: "asc", nulls: "last" });
  return order;
}

function decodeCursor(ctx: PlanContext, table: Table, order: OrderPlan[], cursor: string): CursorPlan {
  const text = decodeBase64(cursor);
  const values = text === null ? null : parseKeyArray(text);
  if (!values) throw new UserError("Failed to decode cursor, error 1");
  // A cursor shorter than the order pages by the values it has (see afterCursor); one longer
  // cannot have come from this order.
  if (values.length > order.length) throw new UserError("orderBy clause incompatible with pagination cursor");
  const texts = values.map(keyItemText);
  return {
    values: texts.map((text, i): ParamNode => {
      const column = table.columns.find((c) => c.name === order[i]!.column)!;
      const type = sqlTypeOf(ctx.api.catalog, column.typeOid);
      return param(text, type);
    }),
    nulls: texts.map((text) => text === null),
  };
}
