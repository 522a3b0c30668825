// Catalog stage, comment directives: the text of a COMMENT → typed directive objects.
// Every `@graphql({...})` directive of every object kind is read here and nowhere else.

import type {
  EnumDirectives,
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
 * The value at `key` when `valid` accepts it, undefined when it is absent or null; anything else
 * is a load error saying what the key must hold.
 */
function optional<T extends Json>(
  obj: JsonObject,
  key: string,
  must: string,
  valid: (v: Json) => v is T,
): T | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (!valid(v)) throw new DirectiveError(`${LOAD_ERROR_PREFIX} "${key}" must ${must}`);
  return v;
}

function isObject(v: Json): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function optionalString(obj: JsonObject, key: string): string | undefined {
  return optional(obj, key, "be a string", (v): v is string => typeof v === "string");
}

function optionalBoolean(obj: JsonObject, key: string): boolean | undefined {
  return optional(obj, key, "be a boolean", (v): v is boolean => typeof v === "boolean");
}

function optionalPositiveInt(obj: JsonObject, key: string): number | undefined {
  return optional(
    obj,
    key,
    "be a positive integer",
    (v): v is number => typeof v === "number" && Number.isInteger(v) && v >= 0,
  );
}

function stringList(obj: JsonObject, key: string): string[] | undefined {
  return optional(
    obj,
    key,
    "be a list of strings",
    (v): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string"),
  );
}

function enabledFlag(obj: JsonObject, key: string): { enabled: boolean } | undefined {
  const v = optional(obj, key, "be an object", isObject);
  return v === undefined ? undefined : { enabled: optionalBoolean(v, "enabled") ?? false };
}

/** Drops keys whose value is undefined so directive objects stay minimal and comparable. */
function compact<T extends object>(obj: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (v !== undefined) out[k] = v;
  return out as T;
}

export const DEFAULT_MAX_ROWS = 30;

export function schemaDirectives(comment: string | null): SchemaDirectives {
  const d = directiveJson(comment);
  return {
    inflectNames: optionalBoolean(d, "inflect_names") ?? false,
    maxRows: optionalPositiveInt(d, "max_rows") ?? DEFAULT_MAX_ROWS,
    introspection: optionalBoolean(d, "introspection") ?? false,
  };
}

export function nameDirectives(comment: string | null): NameDirectives {
  const d = directiveJson(comment);
  return compact({ name: optionalString(d, "name"), description: optionalString(d, "description") });
}

export function enumDirectives(comment: string | null): EnumDirectives {
  const d = directiveJson(comment);
  const mappings = optional(
    d,
    "mappings",
    "map strings to strings",
    (v): v is Record<string, string> => isObject(v) && Object.values(v).every((x) => typeof x === "string"),
  );
  return compact({ name: optionalString(d, "name"), mappings });
}

export function foreignKeyNameDirectives(comment: string | null): { localName?: string; foreignName?: string } {
  const d = directiveJson(comment);
  return compact({ localName: optionalString(d, "local_name"), foreignName: optionalString(d, "foreign_name") });
}

export function tableDirectives(comment: string | null): TableDirectives {
  const d = directiveJson(comment);
  const keys = optional(d, "foreign_keys", "be a list", (v): v is Json[] => Array.isArray(v));
  const foreignKeys = keys?.map((k): ForeignKeyDirective => {
    if (!isObject(k)) throw new DirectiveError(`${LOAD_ERROR_PREFIX} each of "foreign_keys" must be an object`);
    const localColumns = stringList(k, "local_columns");
    const foreignColumns = stringList(k, "foreign_columns");
    const foreignSchema = optionalString(k, "foreign_schema");
    const foreignTable = optionalString(k, "foreign_table");
    if (!localColumns || !foreignColumns || foreignSchema === undefined || foreignTable === undefined) {
      throw new DirectiveError(
        `${LOAD_ERROR_PREFIX} a foreign key needs local_columns, foreign_schema, foreign_table and foreign_columns`,
      );
    }
    return compact({
      localName: optionalString(k, "local_name"),
      localColumns,
      foreignName: optionalString(k, "foreign_name"),
      foreignSchema,
      foreignTable,
      foreignColumns,
    });
  });
  return compact({
    name: optionalString(d, "name"),
    description: optionalString(d, "description"),
    totalCount: enabledFlag(d, "totalCount"),
    aggregate: enabledFlag(d, "aggregate"),
    primaryKeyColumns: stringList(d, "primary_key_columns"),
    foreignKeys,
    maxRows: optionalPositiveInt(d, "max_rows"),
  });
}
