// Routes (Management API): SQL text run in the project's database (as its owner role, or on the
// read-only login), answered as the hosted endpoint answers (postgres-meta's conversion of
// values, the last result with rows); and the databases' schemas.
import { metaRows } from "./metaRows";
import { requireProject } from "../http/access";
import { ok, type ApiArea, type Call } from "../http/operation";
import { withProjectSql } from "./projectSql";

async function runQuery(call: Call<"v1-run-a-query" | "v1-read-only-query">, readOnly: boolean) {
  const project = await requireProject(call);
  const body = call.body;
  const access = readOnly ? "read_only" : "owner";
  const rows = await withProjectSql(call, project, access, (session) => metaRows(session, body.query, body.parameters), undefined, body.query);
  return ok(rows, 201);
}

export const databaseQueryArea: ApiArea = {
  "v1-run-a-query": (call) => runQuery(call, call.body.read_only === true),
  "v1-read-only-query": (call) => runQuery(call, true),
  "v1-get-database-metadata": async (call) => {
    const project = await requireProject(call);
    const rows = await withProjectSql(call, project, "read_only", (session) =>
      session.run<{ name: string; schemas: { name: string }[] }>(`select current_database() as name,
        coalesce((select json_agg(json_build_object('name', nspname) order by nspname) from pg_namespace
          where nspname not like 'pg\\_toast%' and nspname not like 'pg\\_temp\\_%'), '[]') as schemas`),
    );
    return ok({ databases: rows });
  },
};
