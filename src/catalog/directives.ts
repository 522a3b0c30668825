// Catalog stage, comment directives: the text of a COMMENT → typed directive objects.
// Every `@graphql({...})` directive of every object kind is read here and nowhere else.

import type {
  EnumDirectives,
  FeatureSwitches,
  ForeignKeyDirective,
  NameDirectives,
  SchemaDirectives,
  TableDirectives,
} from "./model";

const LOAD_ERROR_PREFIX = "Error while loading schema, check comment directives.";

/** Thrown while parsing the catalog; parseCatalog() turns it into the catalog's loadError. */
export class DirectiveError extends Error {}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/**
 * Whether a comment can hold a directive. Most objects have no comment: their (empty) directives
 * are made without reading each key of an empty object, which a large catalog does thousands of
 * times in a backend's first request.
 */
function hasDirective(comment: string | null): comment is string {
  return comment !== null && comment.includes("@graphql(");
}

/**
 * The JSON inside `@graphql(...)`, or `{}` when the comment has none. The match is greedy up to
 * the last `)`, so parentheses inside string values survive.
 */
export function directiveJson(comment: string | null): JsonObject {
  if (comment === null) return {};
  const start = comment.indexOf("@graphql(");
  if (start < 0) return {};
  const bodyStart = start + "@graphql(".length;
  const end = comment.lastIndexOf(")");
  if (end <= bodyStart) return {};
  const body = comment.slice(bodyStart, end);
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    // pg_graphql reads directives with a jsonb cast, so PostgreSQL's wording is the one users see.
    throw new DirectiveError(`${LOAD_ERROR_PREFIX} invalid input syntax for type json`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new DirectiveError(`${LOAD_ERROR_PREFIX} A directive must be a JSON object`);
  }
  return value as JsonObject;
}

/**
 * How the directive parser of pg_graphql (serde) names a JSON value it did not expect:
 * `string "x"`, ``integer `5` ``, `sequence`, `map`...
 */
function unexpected(v: Json): string {
  if (v === null) return "null";
  if (typeof v === "string") return `string ${JSON.stringify(v)}`;
  if (typeof v === "boolean") return `boolean \`${v}\``;
  if (typeof v === "number") return Number.isInteger(v) ? `integer \`${v}\`` : `floating point \`${v}\``;
  return Array.isArray(v) ? "sequence" : "map";
}

function typeError(v: Json, expected: string): DirectiveError {
  return new DirectiveError(`${LOAD_ERROR_PREFIX} invalid type: ${unexpected(v)}, expected ${expected}`);
}

/** Reads one directive value; `undefined` stands for an absent or null optional value. */
type Reader<T> = (v: Json) => T;

/** The value at `key` read by `read`, or undefined when it is absent or null. */
function optional<T>(obj: JsonObject, key: string, read: Reader<T>): T | undefined {
  const v = obj[key];
  return v === undefined || v === null ? undefined : read(v);
}

/** A value the directive must have. */
function required<T>(obj: JsonObject, key: string, read: Reader<T>): T {
  const v = obj[key];
  if (v === undefined) throw new DirectiveError(`${LOAD_ERROR_PREFIX} missing field \`${key}\``);
  return read(v);
}

function isObject(v: Json): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const readString: Reader<string> = (v) => {
  if (typeof v !== "string") throw typeError(v, "a string");
  return v;
};

const readBoolean: Reader<boolean> = (v) => {
  if (typeof v !== "boolean") throw typeError(v, "a boolean");
  return v;
};

const readUnsigned: Reader<number> = (v) => {
  if (typeof v !== "number" || !Number.isInteger(v)) throw typeError(v, "u64");
  if (v < 0) throw new DirectiveError(`${LOAD_ERROR_PREFIX} invalid value: integer \`${v}\`, expected u64`);
  return v;
};

function readList<T>(item: Reader<T>): Reader<T[]> {
  return (v) => {
    if (!Array.isArray(v)) throw typeError(v, "a sequence");
    return v.map(item);
  };
}

function readObject(what: string): Reader<JsonObject> {
  return (v) => {
    if (!isObject(v)) throw typeError(v, what);
    return v;
  };
}

const readStringMap: Reader<Record<string, string>> = (v) => {
  const obj = readObject("a map")(v);
  for (const x of Object.values(obj)) readString(x);
  return obj as Record<string, string>;
};

function optionalString(obj: JsonObject, key: string): string | undefined {
  return optional(obj, key, readString);
}

function optionalBoolean(obj: JsonObject, key: string): boolean | undefined {
  return optional(obj, key, readBoolean);
}

function optionalPositiveInt(obj: JsonObject, key: string): number | undefined {
  return optional(obj, key, readUnsigned);
}

function stringList(obj: JsonObject, key: string): string[] | undefined {
  return optional(obj, key, readList(readString));
}

function enabledFlag(obj: JsonObject, key: string, struct: string): { enabled: boolean } | undefined {
  const v = optional(obj, key, readObject(`struct ${struct}`));
  return v === undefined ? undefined : { enabled: required(v, "enabled", readBoolean) };
}

/** Drops keys whose value is undefined so directive objects stay minimal and comparable. */
function compact<T extends object>(obj: T): T {
  const out: Record<string, unknown> = {};
  for (const k in obj) if (obj[k] !== undefined) out[k] = obj[k];
  return out as T;
}

export const DEFAULT_MAX_ROWS = 30;

/** The feature switches a directive names; undefined when it names none. */
function featureSwitches(d: JsonObject): FeatureSwitches | undefined {
  const switches = compact({
    upsert: optionalBoolean(d, "upsert"),
    nestedMutations: optionalBoolean(d, "nested_mutations"),
    relationFilters: optionalBoolean(d, "relation_filters"),
    relationOrderBy: optionalBoolean(d, "relation_order_by"),
  });
  return Object.keys(switches).length === 0 ? undefined : switches;
}

export function schemaDirectives(comment: string | null): SchemaDirectives {
  const d = directiveJson(comment);
  const features = featureSwitches(d);
  return {
    inflectNames: optionalBoolean(d, "inflect_names") ?? false,
    maxRows: optionalPositiveInt(d, "max_rows") ?? DEFAULT_MAX_ROWS,
    introspection: optionalBoolean(d, "introspection") ?? false,
    ...(features === undefined ? {} : { features }),
  };
}

export function nameDirectives(comment: string | null): NameDirectives {
  if (!hasDirective(comment)) return {};
  const d = directiveJson(comment);
  return compact({ name: optionalString(d, "name"), description: optionalString(d, "description") });
}

export function enumDirectives(comment: string | null): EnumDirectives {
  if (!hasDirective(comment)) return {};
  const d = directiveJson(comment);
  const mappings = optional(d, "mappings", readStringMap);
  return compact({ name: optionalString(d, "name"), mappings });
}

export function foreignKeyNameDirectives(comment: string | null): { localName?: string; foreignName?: string } {
  if (!hasDirective(comment)) return {};
  const d = directiveJson(comment);
  return compact({ localName: optionalString(d, "local_name"), foreignName: optionalString(d, "foreign_name") });
}

export function tableDirectives(comment: string | null): TableDirectives {
  if (!hasDirective(comment)) return {};
  const d = directiveJson(comment);
  const foreignKeys = optional(d, "foreign_keys", readList(readObject("struct ForeignKeyDirective")))?.map(
    (k): ForeignKeyDirective =>
      compact({
        localName: optionalString(k, "local_name"),
        localColumns: required(k, "local_columns", readList(readString)),
        foreignName: optionalString(k, "foreign_name"),
        foreignSchema: required(k, "foreign_schema", readString),
        foreignTable: required(k, "foreign_table", readString),
        foreignColumns: required(k, "foreign_columns", readList(readString)),
      }),
  );
  return compact({
    name: optionalString(d, "name"),
    description: optionalString(d, "description"),
    totalCount: enabledFlag(d, "totalCount", "TotalCountDirective"),
    aggregate: enabledFlag(d, "aggregate", "AggregateDirective"),
    primaryKeyColumns: stringList(d, "primary_key_columns"),
    foreignKeys,
    maxRows: optionalPositiveInt(d, "max_rows"),
    features: featureSwitches(d),
  });
}
