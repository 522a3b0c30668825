// Routes (Management API): `database/openapi`. There is no PostgREST here, so no REST paths to
// describe: the answer is a Swagger 2.0 document (PostgREST's format) whose paths are the
// project's GraphQL endpoint and whose definitions are the schema's tables and views, read from
// the project database's catalog now.
import { ApiError } from "../http/apiError";
import { requireProject } from "../http/access";
import { ok, type ApiArea } from "../http/operation";

interface ColumnRow {
  relation: string;
  relation_comment: string | null;
  column_name: string | null;
  pg_type: string | null;
  category: string | null;
  required: boolean | null;
  comment: string | null;
}

// One row per column (a relation without columns comes once, with null column fields).
const catalogQuery = `
  select c.relname as relation, pg_catalog.obj_description(c.oid, 'pg_class') as relation_comment,
         a.attname as column_name, pg_catalog.format_type(a.atttypid, a.atttypmod) as pg_type, t.typcategory as category,
         a.attnotnull and not a.atthasdef and a.attidentity = '' and a.attgenerated = '' as required,
         pg_catalog.col_description(c.oid, a.attnum) as comment
    from pg_catalog.pg_class c
    join pg_catalog.pg_namespace n on n.oid = c.relnamespace
    left join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
    left join pg_catalog.pg_type t on t.oid = a.atttypid
   where n.nspname = $1 and c.relkind in ('r', 'p', 'v', 'm', 'f')
   order by c.relname, a.attnum`;

/** A PostgreSQL type category → the JSON type PostgREST's document gives it. */
function jsonType(category: string): string | undefined {
  switch (category) {
    case "N":
      return "number";
    case "B":
      return "boolean";
    case "A":
      return "array";
    case "U":
      return undefined;
    default:
      return "string";
  }
}

function definitions(rows: ColumnRow[]) {
  const out: Record<string, { type: "object"; description?: string; required: string[]; properties: Record<string, object> }> = {};
  for (const row of rows) {
    const def = (out[row.relation] ??= { type: "object", ...(row.relation_comment ? { description: row.relation_comment } : {}), required: [], properties: {} });
    if (row.column_name === null) continue;
    const type = jsonType(row.category ?? "U");
    def.properties[row.column_name] = { ...(type ? { type } : {}), format: row.pg_type, ...(row.comment ? { description: row.comment } : {}) };
    if (row.required) def.required.push(row.column_name);
  }
  return out;
}

const graphqlOperation = (method: "get" | "post") => ({
  summary: `GraphQL ${method === "post" ? "query or mutation" : "query"} over the schema's tables (pg_graphql)`,
  parameters: [{ name: "apiKey", in: "header", required: true, type: "string" }],
  responses: { "200": { description: "the GraphQL result, with `errors` when the request failed" } },
});

export const databaseOpenapiArea: ApiArea = {
  "v1-get-database-openapi": async (call) => {
    const project = await requireProject(call);
    const schema = call.query.schema ?? "public";
    // The tenant's own table list: read on the platform's read-only login, as the tenant.
    const rows = await call.services.logins.run(project, "read_only", call.services.pools.settings.statementTimeoutMs, async (session) => {
      if ((await session.run("select 1 from pg_catalog.pg_namespace where nspname = $1", [schema])).length === 0) return undefined;
      return session.run<ColumnRow>(catalogQuery, [schema]);
    });
    if (!rows) throw new ApiError(400, `The project database has no schema "${schema}"`);
    return ok({
      swagger: "2.0",
      info: {
        title: `${project.name} (${schema})`,
        version: "1.0",
        description: "No PostgREST runs on this server, so there are no REST paths: the tables and views below are served through GraphQL at /project/{ref}/graphql/v1.",
      },
      basePath: `/project/${project.ref}`,
      paths: { "/graphql/v1": { get: graphqlOperation("get"), post: graphqlOperation("post") } },
      definitions: definitions(rows),
    });
  },
};
