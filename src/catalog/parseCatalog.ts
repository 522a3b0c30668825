// Catalog stage, parsing: the reflection query's json document → the typed Catalog model.
// Pure; a malformed comment directive yields a Catalog whose loadError is set.

import {
  DirectiveError,
  enumDirectives,
  foreignKeyNameDirectives,
  nameDirectives,
  schemaDirectives,
  tableDirectives,
} from "./directives";
import type {
  Catalog,
  Column,
  ForeignKey,
  FunctionArg,
  PgFunction,
  PgType,
  RelationKind,
  SchemaInfo,
  Table,
  UniqueIndex,
  Volatility,
} from "./model";
import { invariant } from "../util/invariant";

interface RawColumn {
  attnum: number;
  name: string;
  typeOid: number;
  maxLength: number | null;
  notNull: boolean;
  hasDefault: boolean;
  isGenerated: boolean;
  isSerial: boolean;
  comment: string | null;
  select: boolean;
  insert: boolean;
  update: boolean;
}

interface RawTable {
  oid: number;
  schema: string;
  name: string;
  relkind: string;
  isPartition: boolean;
  rlsEnabled: boolean;
  comment: string | null;
  privileges: { select: boolean; insert: boolean; update: boolean; delete: boolean };
  columns: RawColumn[];
  indexes: {
    isPrimary: boolean;
    isPartial: boolean;
    columns: (string | null)[] | null;
    hasExpression: boolean;
    constraint?: { name: string; deferrable: boolean } | null;
  }[];
  foreignKeys: {
    name: string;
    foreignTableOid: number;
    localColumns: string[];
    foreignColumns: string[];
    comment: string | null;
  }[];
}

interface RawType {
  oid: number;
  schema: string;
  name: string;
  typtype: string;
  category: string;
  elementOid: number;
  baseOid: number;
  relationOid: number;
  usage: boolean;
  onSearchPath: boolean;
  comment: string | null;
  enumValues: string[] | null;
}

interface RawFunction {
  oid: number;
  schema: string;
  name: string;
  args: { name: string | null; mode: string; typeOid: number }[];
  nDefaults: number;
  defaults: string | null;
  returnTypeOid: number;
  returnsSet: boolean;
  rows: number;
  volatility: string;
  isVariadic: boolean;
  isOverloaded: boolean;
  canExecute: boolean;
  comment: string | null;
}

export interface RawCatalog {
  role: string;
  schemas: { oid: number; name: string; comment: string | null }[];
  tables: RawTable[];
  types: RawType[];
  functions: RawFunction[];
}

function relationKind(relkind: string): RelationKind {
  switch (relkind) {
    case "r":
      return "table";
    case "v":
      return "view";
    case "m":
      return "materializedView";
    case "f":
      return "foreignTable";
    case "p":
      return "partitionedTable";
    default:
      invariant(false, `unexpected relkind ${relkind}`);
  }
}

function volatility(v: string): Volatility {
  return v === "i" ? "immutable" : v === "s" ? "stable" : "volatile";
}

function parseType(t: RawType): PgType {
  const base = { oid: Number(t.oid), schema: t.schema, name: t.name };
  if (t.typtype === "e") {
    return {
      kind: "enum",
      ...base,
      values: t.enumValues ?? [],
      comment: t.comment,
      directives: enumDirectives(t.comment),
      exposed: t.onSearchPath && t.usage,
    };
  }
  if (t.typtype === "d") return { kind: "domain", ...base, baseOid: Number(t.baseOid) };
  if (t.typtype === "c") return { kind: "composite", ...base, relationOid: Number(t.relationOid) || null };
  if (t.typtype === "p") return { kind: "pseudo", ...base };
  if (t.category === "A" && Number(t.elementOid) !== 0) {
    return { kind: "array", ...base, elementOid: Number(t.elementOid) };
  }
  return { kind: "base", ...base };
}

function parseColumn(c: RawColumn): Column {
  return {
    attnum: c.attnum,
    name: c.name,
    typeOid: Number(c.typeOid),
    maxLength: c.maxLength ?? null,
    notNull: c.notNull,
    hasDefault: c.hasDefault,
    isGenerated: c.isGenerated,
    isSerial: c.isSerial,
    comment: c.comment,
    directives: nameDirectives(c.comment),
    privileges: { select: c.select, insert: c.insert, update: c.update },
  };
}

/**
 * SQL default expressions as pg_get_expr() prints them, split at top-level commas (quotes and
 * parentheses respected). Defaults belong to the last `count` input arguments.
 */
export function splitDefaults(text: string | null): string[] {
  if (text === null || text.trim() === "") return [];
  const parts: string[] = [];
  let depth = 0;
  let inQuote = false;
  let current = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inQuote) {
      current += ch;
      if (ch === "'") {
        if (text[i + 1] === "'") {
          current += "'";
          i++;
        } else {
          inQuote = false;
        }
      }
      continue;
    }
    if (ch === "'") inQuote = true;
    else if (ch === "(") depth++;
    else if (ch === ")") depth--;
    else if (ch === "," && depth === 0) {
      parts.push(current.trim());
      current = "";
      continue;
    }
    current += ch;
  }
  parts.push(current.trim());
  return parts;
}

function parseFunction(f: RawFunction): PgFunction {
  const inputs = f.args.filter((a) => a.mode === "i" || a.mode === "b" || a.mode === "v");
  const firstDefault = inputs.length - f.nDefaults;
  const defaults = splitDefaults(f.defaults);
  const args: FunctionArg[] = inputs.map((a, i) => ({
    name: a.name === null || a.name === "" ? null : a.name,
    typeOid: Number(a.typeOid),
    hasDefault: i >= firstDefault,
    defaultSql: i >= firstDefault ? defaults[i - firstDefault] ?? null : null,
  }));
  return {
    oid: Number(f.oid),
    schema: f.schema,
    name: f.name,
    args,
    returnTypeOid: Number(f.returnTypeOid),
    returnsSet: f.returnsSet,
    rows: f.rows,
    volatility: volatility(f.volatility),
    isVariadic: f.isVariadic,
    isOverloaded: f.isOverloaded,
    canExecute: f.canExecute,
    comment: f.comment,
    directives: nameDirectives(f.comment),
  };
}

function parseTables(raw: RawTable[]): Table[] {
  const byName = new Map<string, RawTable>();
  for (const t of raw) byName.set(`${t.schema}.${t.name}`, t);
  return raw.map((t) => {
    const oid = Number(t.oid);
    const directives = tableDirectives(t.comment);
    const uniqueIndexes: UniqueIndex[] = t.indexes
      .filter((i) => !i.hasExpression && i.columns !== null && i.columns.every((c) => c !== null))
      .map((i) => ({
        columns: i.columns as string[],
        isPartial: i.isPartial,
        isPrimaryKey: i.isPrimary,
        ...(i.constraint ? { constraint: { name: i.constraint.name, deferrable: i.constraint.deferrable } } : {}),
      }));
    const pkIndex = uniqueIndexes.find((i) => i.isPrimaryKey);
    const primaryKey = pkIndex?.columns ?? directives.primaryKeyColumns ?? [];
    const foreignKeys: ForeignKey[] = t.foreignKeys.map((fk) => ({
      name: fk.name,
      localTableOid: oid,
      localColumns: fk.localColumns,
      foreignTableOid: Number(fk.foreignTableOid),
      foreignColumns: fk.foreignColumns,
      comment: fk.comment,
      ...foreignKeyNameDirectives(fk.comment),
    }));
    for (const d of directives.foreignKeys ?? []) {
      const target = byName.get(`${d.foreignSchema}.${d.foreignTable}`);
      if (target === undefined) continue;
      foreignKeys.push({
        name: null,
        localTableOid: oid,
        localColumns: d.localColumns,
        foreignTableOid: Number(target.oid),
        foreignColumns: d.foreignColumns,
        comment: null,
        ...(d.localName !== undefined ? { localName: d.localName } : {}),
        ...(d.foreignName !== undefined ? { foreignName: d.foreignName } : {}),
      });
    }
    return {
      oid,
      schema: t.schema,
      name: t.name,
      kind: relationKind(t.relkind),
      isPartition: t.isPartition,
      rlsEnabled: t.rlsEnabled,
      comment: t.comment,
      directives,
      columns: t.columns.map(parseColumn),
      primaryKey,
      uniqueIndexes,
      foreignKeys,
      privileges: t.privileges,
    };
  });
}

export function parseCatalog(json: unknown): Catalog {
  const raw = (typeof json === "string" ? JSON.parse(json) : json) as RawCatalog;
  try {
    const schemas: SchemaInfo[] = raw.schemas.map((s) => ({
      oid: Number(s.oid),
      name: s.name,
      comment: s.comment,
      directives: schemaDirectives(s.comment),
    }));
    return {
      role: raw.role,
      schemas,
      tables: parseTables(raw.tables),
      types: raw.types.map(parseType),
      functions: raw.functions.map(parseFunction),
      loadError: null,
    };
  } catch (e) {
    if (!(e instanceof DirectiveError)) throw e;
    return { role: raw.role, schemas: [], tables: [], types: [], functions: [], loadError: e.message };
  }
}
