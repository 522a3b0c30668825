// Settings stage: the project's data API configuration (`postgrest` in the hosted API) ⇄ what its
// GraphQL endpoint really does: the search path of its requests, its pool size, and the page cap,
// which the resolver reads from the `max_rows` directive in the comment of each exposed schema.
import format from "pg-format";
import { DirectiveError, schemaDirectives } from "../../../../src/catalog/directives";
import type { SettingsChanged } from "../tenants/settingsChanged";
import { invalid } from "../errors/domainError";
import { sqlOn, sqlState, type Sql } from "../platform/sql";
import type { ProjectAccess } from "../tenants/projectLogins";
import type { Services } from "../services";
import type { ProjectRecord } from "../tenants/projectStore";
import { withMaxRows } from "./graphqlDirective";
import { schemaList, type ProjectSettings, type SettingsStore } from "./settingsStore";

export interface PostgrestConfig {
  db_schema: string;
  max_rows: number;
  db_extra_search_path: string;
  db_pool: number | null;
  db_pool_acquisition_timeout: number;
  db_pool_max_lifetime: number;
  db_pool_max_idletime: number;
  jwt_secret?: string;
}

/** PostgREST's pool timings, which newer clients read: this server's pool is its own (see
 * `db_pool`), so they are PostgREST's defaults, reported and not settable. */
const poolTimings = { db_pool_acquisition_timeout: 10, db_pool_max_lifetime: 1800, db_pool_max_idletime: 30 };

export interface PostgrestChanges {
  db_schema?: string;
  max_rows?: number;
  db_extra_search_path?: string;
  db_pool?: number;
}

export type OnDatabase = <T>(work: (sql: Sql) => Promise<T>) => Promise<T>;

async function schemaComment(sql: Sql, schema: string): Promise<string | null> {
  const row = await sql.one<{ comment: string | null }>("select pg_catalog.obj_description(oid, 'pg_namespace') as comment from pg_catalog.pg_namespace where nspname = $1", [schema]);
  return row?.comment ?? null;
}

/** The cap of the first exposed schema (each exposed schema gets the same one on a change). */
async function maxRowsOf(sql: Sql, settings: ProjectSettings): Promise<number> {
  const first = schemaList(settings.db_schema)[0];
  try {
    return schemaDirectives(first === undefined ? null : await schemaComment(sql, first)).maxRows;
  } catch (e) {
    if (e instanceof DirectiveError) return schemaDirectives(null).maxRows;
    throw e;
  }
}

/** Runs `work` on a session of the project's own login (its data API settings concern it alone). */
export function onProjectLogin(services: Pick<Services, "logins" | "pools">, project: ProjectRecord, access: ProjectAccess): OnDatabase {
  return (work) => services.logins.run(project, access, services.pools.settings.statementTimeoutMs, (session) => work(sqlOn(session.client)));
}

/** A project's data API settings as read on its read-only login (the /v1 and /v2 answers). */
export function projectPostgrestConfig(services: Pick<Services, "settings" | "logins" | "pools">, project: ProjectRecord): Promise<PostgrestConfig> {
  return readPostgrestConfig(services.settings, project, onProjectLogin(services, project, "read_only"));
}

export async function readPostgrestConfig(store: SettingsStore, project: ProjectRecord, onDatabase: OnDatabase): Promise<PostgrestConfig> {
  const settings = await store.get(project.ref);
  return {
    db_schema: schemaList(settings.db_schema).join(","),
    max_rows: await onDatabase((sql) => maxRowsOf(sql, settings)),
    db_extra_search_path: schemaList(settings.db_extra_search_path).join(","),
    db_pool: settings.db_pool,
    ...poolTimings,
    jwt_secret: project.jwt_secret,
  };
}

function checkChanges(changes: PostgrestChanges): void {
  if (changes.db_schema !== undefined && schemaList(changes.db_schema).length === 0) {
    throw invalid("db_schema must name at least one schema");
  }
  if (changes.max_rows !== undefined && changes.max_rows < 1) throw invalid("max_rows must be at least 1");
  if (changes.db_pool !== undefined && changes.db_pool < 1) throw invalid("db_pool must be at least 1");
}

async function missingSchemas(sql: Sql, names: string[]): Promise<string[]> {
  const rows = await sql.rows<{ name: string }>("select s as name from pg_catalog.unnest($1::pg_catalog.text[]) s where not exists (select 1 from pg_catalog.pg_namespace where nspname = s)", [names]);
  return rows.map((r) => r.name);
}

/** Sets `max_rows` in the directive of each exposed schema, all or none. */
async function applyMaxRows(sql: Sql, schemas: string[], maxRows: number): Promise<void> {
  await sql.rows("begin");
  try {
    // Read-only mode must not keep the platform from managing the directive.
    await sql.rows("set transaction read write");
    for (const schema of schemas) {
      const comment = withMaxRows(await schemaComment(sql, schema), maxRows);
      await sql.rows(format("comment on schema %I is %L", schema, comment));
    }
    await sql.rows("commit");
  } catch (e) {
    await sql.rows("rollback").catch(() => {});
    if (e instanceof DirectiveError) throw invalid(`max_rows cannot be set: ${e.message}`);
    // The directive lives in the schema's comment, which only its owner may change.
    if (sqlState(e) === "42501") throw invalid(`max_rows cannot be set: ${(e as Error).message} (the cap is kept in the comment of each exposed schema); nothing was changed`);
    throw e;
  }
}

/** Checks the changes against the project's database, applies them, and reopens its pool. */
export async function updatePostgrestConfig(
  store: SettingsStore,
  pools: SettingsChanged,
  project: ProjectRecord,
  onDatabase: OnDatabase,
  changes: PostgrestChanges,
): Promise<PostgrestConfig> {
  checkChanges(changes);
  const current = await store.get(project.ref);
  const next: ProjectSettings = {
    ...current,
    ...(changes.db_schema !== undefined ? { db_schema: schemaList(changes.db_schema).join(",") } : {}),
    ...(changes.db_extra_search_path !== undefined ? { db_extra_search_path: schemaList(changes.db_extra_search_path).join(",") } : {}),
    ...(changes.db_pool !== undefined ? { db_pool: changes.db_pool } : {}),
  };
  await onDatabase(async (sql) => {
    const missing = await missingSchemas(sql, [...schemaList(next.db_schema), ...schemaList(next.db_extra_search_path)]);
    if (missing.length > 0) throw invalid(`No schema ${missing.map((s) => `"${s}"`).join(", ")} in the project's database`);
    // Newly exposed schemas get the cap the others have.
    const maxRows = changes.max_rows ?? (changes.db_schema !== undefined ? await maxRowsOf(sql, current) : undefined);
    if (maxRows !== undefined) await applyMaxRows(sql, schemaList(next.db_schema), maxRows);
  });
  await store.update(project.ref, next);
  await pools.changed(project.ref);
  const { jwt_secret: _secret, ...config } = await readPostgrestConfig(store, project, onDatabase);
  return config;
}
