// Plan stage, nested inserts (opt-in): an insert field's objects, some giving related records
// through relationship fields → groups of rows, one insert each, in the order they must run (the
// parent records a group's rows refer to before it, the records referring to its rows after it),
// each foreign key filled from the row the earlier group inserted.

import { GraphQLInputObjectType, getNamedType, type GraphQLInputType } from "graphql";
import type { Table } from "../catalog/model";
import { UserError } from "../document/UserError";
import { inputResolutionOf } from "../schema/resolution";
import { checkLength } from "./checkLength";
import type { Coerced } from "./coerceInput";
import type { PlanContext } from "./context";
import { enumLabels, sqlTypeOf, valueParam } from "./valueParams";
import type { InsertGroupPlan, InsertValuePlan, WritePlan } from "./types";

type Obj = { [key: string]: Coerced };

const isObj = (v: Coerced | undefined): v is Obj => v !== null && v !== undefined && typeof v === "object" && !Array.isArray(v);

/** Whether any object gives a related record (the insert is then a nested one). */
export function givesRelated(type: GraphQLInputObjectType, objects: readonly Obj[]): boolean {
  const fields = type.getFields();
  return objects.some((o) =>
    Object.keys(o).some((k) => o[k] !== null && inputResolutionOf(fields[k]!)?.kind === "insertRelation"),
  );
}

/** Column values a group's rows take from rows inserted before, by column name, per row. */
type Filled = Map<string, InsertValuePlan>;

class NestedPlanner {
  readonly groups: InsertGroupPlan[] = [];

  constructor(private readonly ctx: PlanContext) {}

  /** The index of `column` among what the group's statement returns (added when missing). */
  returned(group: number, column: string): number {
    const returns = this.groups[group]!.returns;
    const i = returns.indexOf(column);
    return i >= 0 ? i : returns.push(column) - 1;
  }

  /** Fills `columns` of a row from `group`'s row `row`, whose `from` columns hold the values. */
  private link(filled: Filled, owner: Table, columns: readonly string[], group: number, row: number, from: readonly string[], type: GraphQLInputObjectType): void {
    columns.forEach((name, m) => {
      if (filled.has(name)) throw new UserError(`Two related records of ${type.name} fill the column "${name}"`);
      const column = owner.columns.find((c) => c.name === name)!;
      const value: InsertValuePlan = { kind: "inserted", group, row, column: this.returned(group, from[m]!), type: sqlTypeOf(this.ctx.api.catalog, column.typeOid) };
      filled.set(name, value);
    });
  }

  /** Plans the rows of `objects` (and, around them, their related records); returns the group's index. */
  group(table: Table, type: GraphQLInputObjectType, objects: readonly Obj[], filled: Filled[]): number {
    const fields = type.getFields();
    const relations = Object.entries(fields).flatMap(([name, field]) => {
      const res = inputResolutionOf(field);
      return res?.kind === "insertRelation" ? [{ name, relation: res.relation, side: res.side, type: field.type }] : [];
    });
    // Parent records first: the rows refer to them.
    for (const r of relations.filter((x) => x.side === "parent")) {
      const rows: number[] = [];
      const parents: Obj[] = [];
      objects.forEach((o, i) => {
        const wrapper = o[r.name];
        if (!isObj(wrapper) || !isObj(wrapper["object"])) return;
        rows.push(i);
        parents.push(wrapper["object"]);
      });
      if (parents.length === 0) continue;
      const g = this.group(r.relation.to, memberType(r.type, "object"), parents, parents.map(() => new Map()));
      rows.forEach((i, k) => this.link(filled[i]!, table, r.relation.fromColumns, g, k, r.relation.toColumns, type));
    }
    const group = this.rows(table, type, objects, filled);
    // Then the records referring to the rows.
    for (const r of relations.filter((x) => x.side === "child")) {
      const children: Obj[] = [];
      const childFilled: Filled[] = [];
      objects.forEach((o, i) => {
        const wrapper = o[r.name];
        if (!isObj(wrapper)) return;
        const given = r.relation.cardinality === "toOne" ? [wrapper["object"]] : ((wrapper["objects"] as Coerced[] | null) ?? []);
        for (const child of given) {
          if (!isObj(child)) continue;
          const f: Filled = new Map();
          this.link(f, r.relation.to, r.relation.toColumns, group, i, r.relation.fromColumns, type);
          children.push(child);
          childFilled.push(f);
        }
      });
      if (children.length === 0) continue;
      this.group(r.relation.to, memberType(r.type, r.relation.cardinality === "toOne" ? "object" : "objects"), children, childFilled);
    }
    return group;
  }

  /** The group of the rows themselves: their own columns and those filled from related rows. */
  private rows(table: Table, type: GraphQLInputObjectType, objects: readonly Obj[], filled: Filled[]): number {
    const fields = type.getFields();
    const fieldOf = new Map<string, string>();
    for (const [name, field] of Object.entries(fields)) {
      const res = inputResolutionOf(field);
      if (res?.kind === "insertColumn") fieldOf.set(res.column.name, name);
    }
    objects.forEach((o, i) => {
      for (const column of filled[i]!.keys()) {
        const name = fieldOf.get(column);
        if (name !== undefined && name in o) {
          throw new UserError(`"${name}" of ${type.name} is filled from the related record the nested insert makes, and cannot be given`);
        }
      }
    });
    const given = (o: Obj, column: string) => fieldOf.has(column) && fieldOf.get(column)! in o;
    const columns = table.columns.filter((c) => objects.some((o, i) => given(o, c.name) || filled[i]!.has(c.name)));
    const rows = objects.map((o, i) =>
      columns.map((c): InsertValuePlan => {
        const link = filled[i]!.get(c.name);
        if (link !== undefined) return link;
        if (!given(o, c.name)) return null;
        const name = fieldOf.get(c.name)!;
        checkLength(o[name]!, c);
        return valueParam(o[name]!, sqlTypeOf(this.ctx.api.catalog, c.typeOid), enumLabels(fields[name]!.type));
      }),
    );
    this.groups.push({ table, columns: columns.map((c) => c.name), rows, returns: [] });
    return this.groups.length - 1;
  }
}

/** The insert input type inside an `{object}` or `{objects}` wrapper. */
function memberType(wrapper: GraphQLInputType, member: "object" | "objects"): GraphQLInputObjectType {
  const named = getNamedType(wrapper) as GraphQLInputObjectType;
  return getNamedType(named.getFields()[member]!.type) as GraphQLInputObjectType;
}

export function planNestedInsert(ctx: PlanContext, table: Table, type: GraphQLInputObjectType, objects: readonly Obj[]): WritePlan {
  const planner = new NestedPlanner(ctx);
  const root = planner.group(table, type, objects, objects.map(() => new Map()));
  const key = table.primaryKey.map((name) => {
    const column = table.columns.find((c) => c.name === name)!;
    return { column: planner.returned(root, name), type: sqlTypeOf(ctx.api.catalog, column.typeOid) };
  });
  return { kind: "nestedInsert", table, groups: planner.groups, root, key };
}

