// Branches stage: a branch database copied from its parent (objects owned by the parent's owner,
// grants naming it, its default privileges) → the branch's own: every object the parent's owner
// owned passes to the branch's owner, grants to the parent's owner are taken back, and the
// parent's default privileges are the branch owner's. Done by a short-lived login that is a
// member of both owner roles and nothing else, so whatever runs in it has no right the tenant
// does not already have: never by a superuser.
import { randomBytes } from "node:crypto";
import format from "pg-format";
import type { ServerDoor } from "../door/superuserDoor";
import type { ProjectServers } from "../servers/projectServers";
import { scramVerifier } from "../tenants/scramVerifier";
import { withConnection } from "../platform/sql";
import type { ProjectRecord } from "../tenants/projectStore";

export interface DefaultAclRow {
  schema: string | null;
  kind: "r" | "S" | "f" | "T" | "n";
  /** null: PUBLIC. */
  grantee: string | null;
  privilege: string;
  grantable: boolean;
}

const kinds: Record<DefaultAclRow["kind"], string> = { r: "tables", S: "sequences", f: "functions", T: "types", n: "schemas" };

type Query = <R extends Record<string, unknown>>(text: string, values: unknown[]) => Promise<R[]>;

/** The role's default privileges in a database, one row per privilege granted. */
export async function defaultAclRows(query: Query, role: string): Promise<DefaultAclRow[]> {
  return query<DefaultAclRow & Record<string, unknown>>(
    `select n.nspname as schema, d.defaclobjtype as kind, g.rolname as grantee, a.privilege_type as privilege, a.is_grantable as grantable
       from pg_catalog.pg_default_acl d
       join pg_catalog.pg_roles o on o.oid = d.defaclrole
       left join pg_catalog.pg_namespace n on n.oid = d.defaclnamespace
       cross join lateral pg_catalog.aclexplode(d.defaclacl) a
       left join pg_catalog.pg_roles g on g.oid = a.grantee
      where o.rolname = $1 and a.grantee <> d.defaclrole
      order by 1, 2, 3, 4`,
    [role],
  );
}

/** The statements that give `role` the default privileges described by `rows`. */
export function defaultAclGrants(role: string, rows: DefaultAclRow[]): string[] {
  return rows.map((r) =>
    format(
      `alter default privileges for role %I${r.schema === null ? "" : " in schema %I"} grant %s on %s to %s${r.grantable ? " with grant option" : ""}`,
      ...[role, ...(r.schema === null ? [] : [r.schema]), r.privilege.toLowerCase(), kinds[r.kind], r.grantee === null ? "public" : format.ident(r.grantee)],
    ),
  );
}

// Objects follow their owner dependency (pg_shdepend); sequences of identity and serial columns
// change owner with their table. Extensions cannot change owner in SQL and keep theirs.
const handOverSql = (from: string, to: string) =>
  format(
    `do $handover$
declare
  r record;
  from_role pg_catalog.oid := (select oid from pg_catalog.pg_roles where rolname = %L);
  this_db pg_catalog.oid := (select oid from pg_catalog.pg_database where datname = pg_catalog.current_database());
  kind text;
begin
  for r in
    select d.classid, d.objid, o.type, o.identity
      from pg_catalog.pg_shdepend d, pg_catalog.pg_identify_object(d.classid, d.objid, 0) o
     where d.dbid = this_db and d.refclassid = 'pg_catalog.pg_authid'::pg_catalog.regclass and d.refobjid = from_role and d.deptype = 'o'
       and not exists (select 1 from pg_catalog.pg_depend x where x.classid = 'pg_catalog.pg_class'::pg_catalog.regclass
                         and d.classid = x.classid and x.objid = d.objid and x.deptype in ('a', 'i'))
     -- Schemas first: a new owner needs CREATE on an object's schema.
     order by d.classid <> 'pg_catalog.pg_namespace'::pg_catalog.regclass, d.classid, d.objid
  loop
    kind := case r.type
      when 'table' then 'table' when 'view' then 'view' when 'materialized view' then 'materialized view'
      when 'sequence' then 'sequence' when 'foreign table' then 'foreign table' when 'composite type' then 'type'
      when 'function' then 'function' when 'procedure' then 'procedure' when 'aggregate' then 'aggregate'
      when 'type' then case when (select typtype from pg_catalog.pg_type where oid = r.objid) = 'd' then 'domain' else 'type' end
      when 'domain' then 'domain' when 'schema' then 'schema' when 'collation' then 'collation' when 'conversion' then 'conversion'
      when 'operator' then 'operator' when 'operator class' then 'operator class' when 'operator family' then 'operator family'
      when 'text search dictionary' then 'text search dictionary' when 'text search configuration' then 'text search configuration'
      when 'statistics object' then 'statistics' when 'publication' then 'publication' when 'large object' then 'large object'
      when 'server' then 'server'
      else null end;
    continue when kind is null;
    execute pg_catalog.format('alter %%s %%s owner to %%I', kind, r.identity, %L);
  end loop;
  -- Grants to the parent's owner (the owner's own entries went with the objects).
  for r in
    select d.classid, d.objid, d.objsubid, o.type, o.identity
      from pg_catalog.pg_shdepend d, pg_catalog.pg_identify_object(d.classid, d.objid, 0) o
     where d.dbid = this_db and d.refclassid = 'pg_catalog.pg_authid'::pg_catalog.regclass and d.refobjid = from_role and d.deptype = 'a'
  loop
    kind := case when r.type in ('table', 'view', 'materialized view', 'foreign table') then 'table'
      when r.type = 'sequence' then 'sequence' when r.type in ('function', 'procedure', 'aggregate') then 'routine'
      when r.type in ('type', 'domain', 'composite type') then 'type' when r.type = 'schema' then 'schema'
      when r.type = 'large object' then 'large object' when r.type = 'server' then 'foreign server'
      else null end;
    continue when kind is null;
    if r.objsubid <> 0 then
      execute pg_catalog.format('revoke all (%%I) on table %%s from %%I',
        (select attname from pg_catalog.pg_attribute where attrelid = r.objid and attnum = r.objsubid), r.identity, %L);
    else
      execute pg_catalog.format('revoke all on %%s %%s from %%I', kind, r.identity, %L);
    end if;
  end loop;
end $handover$`,
    from,
    to,
    from,
    from,
  );

/** The statements that remove `role`'s default privileges described by `rows`. */
function defaultAclRevokes(role: string, rows: DefaultAclRow[]): string[] {
  return rows.map((r) =>
    format(
      `alter default privileges for role %I${r.schema === null ? "" : " in schema %I"} revoke all on %s from %s`,
      ...[role, ...(r.schema === null ? [] : [r.schema]), kinds[r.kind], r.grantee === null ? "public" : format.ident(r.grantee)],
    ),
  );
}

/** Settings of the handover session: the catalog alone resolves names. */
const options = "-c search_path=pg_catalog,pg_temp -c statement_timeout=300s -c default_transaction_read_only=off";

/**
 * Makes the branch's database its owner's. `parentDefaults`: the parent owner's default
 * privileges as the parent's database has them (read there, on its read-only login).
 */
export async function handOverToBranchOwner(
  door: ServerDoor,
  servers: ProjectServers,
  parent: ProjectRecord,
  branch: ProjectRecord,
  parentDefaults: DefaultAclRow[],
): Promise<void> {
  const login = `${branch.ref}_handover`;
  const password = randomBytes(24).toString("base64url");
  await door.roles.createWorkLogin(login, scramVerifier(password), [parent.owner_role, branch.owner_role], branch.database_name);
  try {
    const url = servers.loginUrl(branch.server, branch.database_name, login, password);
    await withConnection(url, async (sql) => {
      await sql.rows("begin");
      await sql.rows(handOverSql(parent.owner_role, branch.owner_role));
      for (const statement of defaultAclGrants(branch.owner_role, parentDefaults)) await sql.rows(statement);
      for (const statement of defaultAclRevokes(parent.owner_role, await defaultAclRows((text, values) => sql.rows(text, values), parent.owner_role))) await sql.rows(statement);
      await sql.rows("commit");
    }, { startupOptions: options });
  } finally {
    await door.roles.dropLogin(login, branch.database_name, branch.owner_role);
  }
  // What the platform granted the parent's owner on its own objects (the auth schema).
  await door.inside.revokePlatformGrants(branch.database_name, parent.owner_role);
}
