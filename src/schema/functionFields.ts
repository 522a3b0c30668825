// Schema stage, functions: which PostgreSQL functions the API exposes and with what arguments.
// Input: catalog functions + exposed tables; output: root (Query/Mutation) and computed field specs.

import type { FunctionArg, PgFunction, Table } from "../catalog/model";
import { unreachable } from "../util/invariant";
import type { FunctionReturn } from "./resolution";
import type { TypeMapper, TypeShape } from "./scalars";

/** Schemas whose functions are never exposed. */
const SYSTEM_SCHEMAS = new Set(["graphql", "graphql_public", "auth", "extensions", "pg_catalog", "information_schema"]);

/** Argument names a connection-returning function may not use. */
const CONNECTION_ARGS = new Set(["first", "last", "before", "after", "offset", "filter", "orderBy"]);

export interface ExposedArg {
  readonly arg: FunctionArg & { readonly name: string };
  readonly shape: TypeShape;
  /** Rendered GraphQL default value text (`"1"`, `"\"hello\""`), when the SQL default is a literal. */
  readonly defaultValue: string | null;
}

export interface ExposedFunction {
  readonly fn: PgFunction;
  readonly args: readonly ExposedArg[];
  readonly returns: FunctionReturn;
  /** For scalar returns: the shape of the returned value. */
  readonly returnShape: TypeShape | null;
}

/** True for shapes functions may take or return: no enums, no composites, no lists of those. */
function plainShape(shape: TypeShape): boolean {
  switch (shape.kind) {
    case "scalar":
      return true;
    case "list":
      return shape.element.kind === "scalar";
    case "enum":
    case "composite":
    case "unsupported":
      return false;
    default:
      return unreachable(shape, "shape");
  }
}

/** Enums (exposed or not) and arrays of enums: functions using them are not exposed. */
function isEnumLike(oid: number, types: TypeMapper): boolean {
  const t = types.get(oid);
  if (t?.kind === "enum") return true;
  return t?.kind === "array" && types.get(t.elementOid)?.kind === "enum";
}

/** What `fn` returns as the API exposes it; null when the API cannot expose that. */
function returnOf(
  fn: PgFunction,
  types: TypeMapper,
  tablesByOid: ReadonlyMap<number, Table>,
  rowTablesByOid: ReadonlyMap<number, Table> = new Map(),
): Pick<ExposedFunction, "returns" | "returnShape"> | null {
  const t = types.get(fn.returnTypeOid);
  if (t?.kind === "composite") {
    if (t.relationOid === null) return null;
    const kind = fn.returnsSet && fn.rows !== 1 ? "connection" : "node";
    // A relation without a key is no collection, but one of its rows can still be returned.
    const table = tablesByOid.get(t.relationOid) ?? (kind === "node" ? rowTablesByOid.get(t.relationOid) : undefined);
    if (table === undefined) return null;
    return { returns: { kind, table }, returnShape: null };
  }
  if (fn.returnsSet) return null;
  const shape = types.shape(fn.returnTypeOid);
  if (!plainShape(shape) || isEnumLike(fn.returnTypeOid, types)) return null;
  return {
    returns: { kind: "scalar", typeOid: fn.returnTypeOid, isArray: shape.kind === "list" },
    returnShape: shape,
  };
}

/** A literal SQL default as GraphQL prints it; null when it isn't a plain literal (or is NULL). */
export function graphqlDefaultOf(sql: string): string | null {
  const s = sql.trim();
  if (/^-?\d+(\.\d+)?$/.test(s)) return s;
  if (/^\(-?\d+(\.\d+)?\)$/.test(s)) return s.slice(1, -1);
  if (s === "true" || s === "false") return s;
  const quoted = /^'((?:[^']|'')*)'(?:::[\w\s."]+(?:\[\])?)?$/.exec(s);
  if (quoted) {
    const body = quoted[1]!.replace(/''/g, "'");
    const cast = s.slice(quoted[0].indexOf("'", 1) + 1);
    if (/^::(numeric|double precision|real|integer|bigint|smallint)$/.test(cast) && /^-?\d+(\.\d+)?$/.test(body)) {
      return body;
    }
    if (/^::boolean$/.test(cast) && (body === "true" || body === "false")) return body;
    return JSON.stringify(body);
  }
  return null;
}

export function exposedFunctions(
  functions: readonly PgFunction[],
  types: TypeMapper,
  tablesByOid: ReadonlyMap<number, Table>,
): ExposedFunction[] {
  const out: ExposedFunction[] = [];
  for (const fn of functions) {
    if (SYSTEM_SCHEMAS.has(fn.schema) || fn.isOverloaded || fn.isVariadic || !fn.canExecute) continue;
    if (fn.args.some((a) => a.name === null)) continue;
    const returned = returnOf(fn, types, tablesByOid);
    if (returned === null) continue;
    const args: ExposedArg[] = [];
    let ok = true;
    fn.args.forEach((arg) => {
      const shape = types.shape(arg.typeOid);
      if (!plainShape(shape) || isEnumLike(arg.typeOid, types)) ok = false;
      if (returned.returns.kind === "connection" && CONNECTION_ARGS.has(arg.name!)) ok = false;
      // Defaults of array arguments are not honoured: such arguments stay required.
      const named = (shape.kind === "list" ? { ...arg, hasDefault: false, defaultSql: null } : arg) as FunctionArg & {
        name: string;
      };
      args.push({
        arg: named,
        shape,
        defaultValue: named.defaultSql === null ? null : graphqlDefaultOf(named.defaultSql),
      });
    });
    if (!ok) continue;
    out.push({ fn, args, ...returned });
  }
  return out;
}

/**
 * Candidates for computed fields, by the oid of the table whose row type is their one argument
 * (catalog order kept), so that each table looks only at its own instead of at every function.
 */
export function functionsByRowArgument(functions: readonly PgFunction[], types: TypeMapper): Map<number, PgFunction[]> {
  const byTable = new Map<number, PgFunction[]>();
  for (const fn of functions) {
    if (fn.args.length !== 1) continue;
    const argType = types.get(fn.args[0]!.typeOid);
    if (argType?.kind !== "composite" || argType.relationOid === null) continue;
    const list = byTable.get(argType.relationOid);
    if (list === undefined) byTable.set(argType.relationOid, [fn]);
    else list.push(fn);
  }
  return byTable;
}

/**
 * Functions taking exactly one argument, the row type of `table`: its computed fields. Those
 * returning one row may return a row of `rowTablesByOid` (relations without a key).
 */
export function computedFunctions(
  table: Table,
  functions: readonly PgFunction[],
  types: TypeMapper,
  tablesByOid: ReadonlyMap<number, Table>,
  rowTablesByOid: ReadonlyMap<number, Table>,
): ExposedFunction[] {
  return functions.flatMap((fn): ExposedFunction[] => {
    if (fn.args.length !== 1 || !fn.canExecute || fn.isVariadic) return [];
    const argType = types.get(fn.args[0]!.typeOid);
    if (argType?.kind !== "composite" || argType.relationOid !== table.oid) return [];
    const returned = returnOf(fn, types, tablesByOid, rowTablesByOid);
    return returned === null ? [] : [{ fn, args: [], ...returned }];
  });
}

/** Root functions must not take a row type: those are computed fields. */
export function takesRow(fn: PgFunction, types: TypeMapper): boolean {
  return fn.args.some((a) => types.get(a.typeOid)?.kind === "composite");
}
