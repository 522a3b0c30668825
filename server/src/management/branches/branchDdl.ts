// Branches stage: the SQL that makes a copy of a parent's database the branch's own — every
// object the parent's owner role owned passes to the branch's owner, and the parent owner's
// default privileges and grants are taken back — and that reads and records migrations.
import format from "pg-format";

/** Run in the branch database as a superuser, right after it was copied from the parent. */
export function transferOwnershipSql(fromOwner: string, toOwner: string): string {
  const apiRoles = "anon, authenticated, service_role";
  return [
    format(
      `do $transfer$
declare
  r record;
  from_oid oid := %L::regrole;
begin
  for r in select nspname from pg_namespace where nspowner = from_oid loop
    execute format('alter schema %%I owner to %%I', r.nspname, %L);
  end loop;
  for r in select c.oid::regclass as name, c.relkind from pg_class c
    where c.relowner = from_oid and c.relkind in ('r', 'p', 'v', 'm', 'f', 'S')
      and not exists (select 1 from pg_depend d where d.classid = 'pg_class'::regclass and d.objid = c.oid and d.deptype in ('a', 'i'))
  loop
    execute format('alter %%s %%s owner to %%I',
      case r.relkind when 'v' then 'view' when 'm' then 'materialized view' when 'f' then 'foreign table' when 'S' then 'sequence' else 'table' end,
      r.name, %L);
  end loop;
  for r in select p.oid::regprocedure as name from pg_proc p where p.proowner = from_oid loop
    execute format('alter routine %%s owner to %%I', r.name, %L);
  end loop;
  for r in select t.oid::regtype as name, t.typtype from pg_type t
    where t.typowner = from_oid and t.typtype in ('e', 'd', 'r', 'm') loop
    execute format('alter %%s %%s owner to %%I', case r.typtype when 'd' then 'domain' else 'type' end, r.name, %L);
  end loop;
  -- Grants to the parent's owner on objects it did not own (its role must stay droppable).
  for r in select nspname from pg_namespace where exists (select 1 from aclexplode(nspacl) a where a.grantee = from_oid) loop
    execute format('revoke all on schema %%I from %%s', r.nspname, from_oid::regrole);
  end loop;
  for r in select c.oid::regclass as name from pg_class c
    where c.relkind in ('r', 'p', 'v', 'm', 'f', 'S') and exists (select 1 from aclexplode(c.relacl) a where a.grantee = from_oid) loop
    execute format('revoke all on table %%s from %%s', r.name, from_oid::regrole);
  end loop;
  for r in select p.oid::regprocedure as name from pg_proc p where exists (select 1 from aclexplode(p.proacl) a where a.grantee = from_oid) loop
    execute format('revoke all on routine %%s from %%s', r.name, from_oid::regrole);
  end loop;
end $transfer$`,
      fromOwner,
      toOwner,
      toOwner,
      toOwner,
      toOwner,
    ),
    ...["tables", "routines", "sequences"].map((kind) =>
      format(`alter default privileges for role %I in schema public revoke all on ${kind} from ${apiRoles}`, fromOwner),
    ),
  ].join(";\n");
}

/** Gives the migration history to the project's owner role, as a project's own history is (made
 * by a superuser, the owner could neither write it nor add the API's columns). */
export function historyOwnerSql(owner: string): string[] {
  return [
    format("alter schema supabase_migrations owner to %I", owner),
    format("alter table supabase_migrations.schema_migrations owner to %I", owner),
  ];
}

/** The migration history table as the CLI keeps it (made when a replay or merge needs it). */
export const migrationsTableSql = `create schema if not exists supabase_migrations;
create table if not exists supabase_migrations.schema_migrations (version text not null primary key, statements text[], name text)`;
