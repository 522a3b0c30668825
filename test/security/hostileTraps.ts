// Test support (hostile tenant): the SQL a tenant runs in its own database, with nothing but its
// owner role, to catch a platform that runs tenant code or resolves tenant names with superuser
// rights. Every trap logs `hostile-trap` (where it ran, as whom) as a WARNING, which reaches the
// server log even from read-only and rolled-back transactions; run by a superuser, or in a
// session whose login is one, it tries to make the tenant's owner a superuser, grant it
// pg_execute_server_program and run a program as the server's OS user.
import format from "pg-format";

export interface TrapTarget {
  /** The tenant's owner role (the one the traps try to promote). */
  owner: string;
  /** A folder the server's OS user can write: `COPY ... TO PROGRAM` leaves a mark there. */
  markFolder: string;
  /** psql and the server's socket: the program a trap runs logs in as the OS user's superuser,
   * outside the read-only transaction it may be in. */
  psql: string;
}

/** The file name prefix of the marks a program run by a trap leaves. */
export const markPrefix = "hostile-mark-";

/** The core: `hostile.trap(tag)` logs and escalates; the wrappers fit where a trap can sit. */
export function trapFunctionsSql(target: TrapTarget): string {
  const escalate = [
    format("alter role %I superuser", target.owner),
    format("grant pg_execute_server_program to %I", target.owner),
  ];
  return `
create schema if not exists hostile;
grant usage on schema hostile to public;

create or replace function hostile.escalate(tag text) returns void
language plpgsql set search_path = pg_catalog, pg_temp as $fn$
declare
  statement text;
  promoted boolean := false;
begin
  foreach statement in array ${format("array[%L, %L]", ...escalate)} loop
    begin
      execute statement;
      promoted := true;
      raise warning 'hostile-escalated tag=[%] did=[%]', tag, statement;
    exception when others then
      raise warning 'hostile-attempt tag=[%] failed=[%]: %', tag, statement, sqlerrm;
    end;
  end loop;
  -- The program marks that it ran; when the statements above could not run (a read-only
  -- transaction), it promotes the owner from a session of its own, with a bounded wait (the
  -- transaction it runs in may hold the row it would lock).
  begin
    execute format('copy (select 1) to program %L',
      'touch ' || ${format("%L", `${target.markFolder}/${markPrefix}`)} || regexp_replace(tag, '[^a-zA-Z0-9]+', '_', 'g')
      || case when promoted then '' else ${format("%L", ` && PGOPTIONS='-c lock_timeout=2s -c statement_timeout=5s' ${target.psql} -c "${escalate.join("; ")}"`)} end);
    raise warning 'hostile-escalated tag=[%] did=[copy to program]', tag;
  exception when others then
    raise warning 'hostile-attempt tag=[%] failed=[copy to program]: %', tag, sqlerrm;
  end;
end $fn$;

-- Logs once per transaction, tag and identity (it may be called once per row).
create or replace function hostile.trap(tag text) returns boolean
language plpgsql set search_path = pg_catalog, pg_temp as $fn$
declare
  me text := current_user;
  login text := session_user;
  su boolean;
  login_su boolean;
  seen text := 'hostile.seen_' || md5(tag || '/' || current_user || '/' || session_user);
begin
  if current_setting(seen, true) = 'y' then
    return true;
  end if;
  perform set_config(seen, 'y', true);
  select r.rolsuper into su from pg_roles r where r.rolname = me;
  select r.rolsuper into login_su from pg_roles r where r.rolname = login;
  raise warning 'hostile-trap tag=[%] current_user=[%] session_user=[%] superuser=[%] session_superuser=[%] read_only=[%] database=[%]',
    tag, me, login, coalesce(su, false), coalesce(login_su, false), current_setting('transaction_read_only'), current_database();
  -- A superuser login behind SET ROLE (pg_restore --role, SET LOCAL ROLE) is one RESET away.
  if coalesce(login_su, false) and not coalesce(su, false) then
    begin
      reset role;
    exception when others then
      raise warning 'hostile-attempt tag=[%] failed=[reset role]: %', tag, sqlerrm;
    end;
  end if;
  if (select r.rolsuper from pg_roles r where r.rolname = current_user) then
    perform hostile.escalate(tag);
  end if;
  if current_user <> me then
    execute format('set role %I', me);
  end if;
  return true;
end $fn$;

-- Index expressions and generated columns take immutable functions only.
-- PL/pgSQL: an SQL function would be inlined, and the volatile trap seen through it.
create or replace function hostile.trap_immutable(tag text) returns boolean
language plpgsql immutable as $fn$ begin return hostile.trap(tag); end $fn$;

create or replace function hostile.trap_text(tag text) returns text
language sql as $fn$ select case when hostile.trap(tag) then 'trapped' end $fn$;

create or replace function hostile.trap_trigger() returns trigger
language plpgsql as $fn$
begin
  perform hostile.trap('trigger ' || tg_table_schema || '.' || tg_table_name);
  return new;
end $fn$;
`;
}

/** A look-alike: `schema.name(args)` runs the trap, then answers what pg_catalog's would. */
function lookAlike(schema: string, name: string, args: string[], returns: string, body: string): string {
  const params = args.join(", ");
  const tag = `${schema}.${name}(${params})`;
  const setof = returns.startsWith("setof ");
  const answer = setof ? `return query ${body};` : `return ${body};`;
  return format(
    `create or replace function %I.%I(${params}) returns ${returns}
language plpgsql set search_path = pg_catalog, pg_temp as $fn$
begin
  perform hostile.trap(%L);
  ${answer}
end $fn$;`,
    schema,
    name,
    tag,
  );
}

/** Overloads that match the platform's calls better than pg_catalog's do, so they win from any
 * schema on the search path (an `unknown` literal prefers text; exact types beat polymorphic,
 * variadic "any" and implicitly cast ones). */
export function betterMatchesSql(schema: string): string {
  return [
    format("create schema if not exists %I", schema) + ";",
    format("grant usage on schema %I to public", schema) + ";",
    lookAlike(schema, "obj_description", ["oid", "text"], "text", "pg_catalog.obj_description($1, $2::name)"),
    lookAlike(schema, "col_description", ["oid", "smallint"], "text", "pg_catalog.col_description($1, $2::int)"),
    lookAlike(schema, "has_database_privilege", ["name", "name", "text"], "boolean", "pg_catalog.has_database_privilege($1, $2::text, $3)"),
    lookAlike(schema, "family", ["pg_catalog.cidr"], "integer", "pg_catalog.family($1)"),
    lookAlike(schema, "current_setting", ["name"], "text", "pg_catalog.current_setting($1::text)"),
    lookAlike(schema, "unnest", ["text[]"], "setof text", "select pg_catalog.unnest($1)"),
    lookAlike(schema, "format", ["text", "name", "text"], "text", "pg_catalog.format($1, $2, $3)"),
    lookAlike(schema, "format", ["text", "name", "regrole"], "text", "pg_catalog.format($1, $2, $3)"),
    lookAlike(schema, "format", ["text", "regclass", "regrole"], "text", "pg_catalog.format($1, $2, $3)"),
    lookAlike(schema, "format", ["text", "regprocedure", "text"], "text", "pg_catalog.format($1, $2, $3)"),
    lookAlike(schema, "format", ["text", "regprocedure", "regrole"], "text", "pg_catalog.format($1, $2, $3)"),
    lookAlike(schema, "format", ["text", "text", "regclass", "text"], "text", "pg_catalog.format($1, $2, $3, $4)"),
    lookAlike(schema, "format", ["text", "text", "regtype", "text"], "text", "pg_catalog.format($1, $2, $3, $4)"),
  ].join("\n");
}

/** Catalog relations a session with `evil` first on its search path reads through a trap. */
export const shadowedRelations = [
  "pg_roles",
  "pg_namespace",
  "pg_class",
  "pg_attribute",
  "pg_type",
  "pg_proc",
  "pg_depend",
  "pg_settings",
  "pg_extension",
  "pg_available_extensions",
  "pg_stat_activity",
  "pg_database",
  "pg_tables",
  "pg_views",
];

/** A view cannot have pg_attribute's anyarray column. */
const columnsOf: Record<string, string> = {
  pg_attribute: `attrelid, attname, atttypid, attstattarget, attlen, attnum, attndims, attcacheoff, atttypmod, attbyval, attalign,
    attstorage, attcompression, attnotnull, atthasdef, atthasmissing, attidentity, attgenerated, attisdropped, attislocal,
    attinhcount, attcollation, attacl, attoptions, attfdwoptions`,
};

/** The schema the tenant puts before pg_catalog with ALTER DATABASE ... SET search_path: exact
 * copies of the functions, operators, types and relations the platform names unqualified. */
export function evilSchemaSql(schema: string): string {
  const s = (text: string) => text.replaceAll("%s", format("%I", schema));
  return [
    s("create schema if not exists %s; grant usage on schema %s to public;"),
    lookAlike(schema, "current_setting", ["text"], "text", "pg_catalog.current_setting($1)"),
    lookAlike(schema, "current_setting", ["text", "boolean"], "text", "pg_catalog.current_setting($1, $2)"),
    lookAlike(schema, "set_config", ["text", "text", "boolean"], "text", "pg_catalog.set_config($1, $2, $3)"),
    lookAlike(schema, "current_database", [], "name", "pg_catalog.current_database()"),
    lookAlike(schema, "pg_database_size", ["name"], "bigint", "pg_catalog.pg_database_size($1)"),
    lookAlike(schema, "pg_database_size", ["oid"], "bigint", "pg_catalog.pg_database_size($1)"),
    lookAlike(schema, "format_type", ["oid", "integer"], "text", "pg_catalog.format_type($1, $2)"),
    lookAlike(schema, "obj_description", ["oid", "name"], "text", "pg_catalog.obj_description($1, $2)"),
    lookAlike(schema, "col_description", ["oid", "integer"], "text", "pg_catalog.col_description($1, $2)"),
    lookAlike(schema, "has_database_privilege", ["name", "text", "text"], "boolean", "pg_catalog.has_database_privilege($1, $2, $3)"),
    lookAlike(schema, "to_char", ["timestamp", "text"], "text", "pg_catalog.to_char($1, $2)"),
    lookAlike(schema, "to_char", ["timestamptz", "text"], "text", "pg_catalog.to_char($1, $2)"),
    lookAlike(schema, "to_regclass", ["text"], "regclass", "pg_catalog.to_regclass($1)"),
    lookAlike(schema, "pg_terminate_backend", ["integer", "bigint"], "boolean", "pg_catalog.pg_terminate_backend($1, $2)"),
    lookAlike(schema, "pg_reload_conf", [], "boolean", "pg_catalog.pg_reload_conf()"),
    lookAlike(schema, "nameeq", ["name", "name"], "boolean", "pg_catalog.nameeq($1, $2)"),
    lookAlike(schema, "int4div", ["integer", "integer"], "integer", "pg_catalog.int4div($1, $2)"),
    s("create operator %s.= (leftarg = name, rightarg = name, function = %s.nameeq);"),
    s("create operator %s./ (leftarg = integer, rightarg = integer, function = %s.int4div);"),
    // Types by name: `$1::cidr` becomes this domain over text, so any string passes the check
    // and `$1::cidr::text` is the string itself (a line break and a pg_hba.conf rule included).
    s("create domain %s.cidr as pg_catalog.text check (hostile.trap('domain cidr'));"),
    s("create domain %s.text as pg_catalog.text check (hostile.trap('domain text'));"),
    s("create domain %s.regclass as pg_catalog.regclass check (hostile.trap('domain regclass'));"),
    s(`create function %s.family(%s.cidr) returns integer
language plpgsql set search_path = pg_catalog, pg_temp as $fn$
begin
  perform hostile.trap('evil family(cidr domain)');
  if strpos($1, E'\\n') > 0 then return 4; end if;
  return pg_catalog.family($1::pg_catalog.cidr);
end $fn$;`),
    ...shadowedRelations.map((relation) =>
      format(
        `create or replace view %I.%I as select ${columnsOf[relation] ?? "*"} from pg_catalog.%I where hostile.trap(%L); grant select on %I.%I to public;`,
        schema,
        relation,
        relation,
        `view ${relation}`,
        schema,
        relation,
      ),
    ),
  ].join("\n");
}

/** Rows and objects whose constraints, defaults, triggers, index expressions, generated columns,
 * domains, policies and materialized views call traps: whoever loads, copies, refreshes or
 * writes them runs tenant code. `vault` forces row level security on its owner too. */
export const trappedDataSql = `
create domain public.trapped_note as text check (hostile.trap('domain check public.trapped_note'));
create table public.loot (
  id int primary key,
  note public.trapped_note not null,
  stamp text default hostile.trap_text('column default public.loot.stamp'),
  checked boolean generated always as (hostile.trap_immutable('generated column public.loot.checked')) stored,
  constraint loot_trap check (hostile.trap('check constraint public.loot'))
);
create index loot_trap_index on public.loot ((hostile.trap_immutable('index expression public.loot')));
create trigger loot_trap before insert or update on public.loot for each row execute function hostile.trap_trigger();
insert into public.loot (id, note) values (1, 'loot-1'), (2, 'loot-2'), (3, 'loot-3');
create materialized view public.loot_summary as select count(*) as n, bool_and(hostile.trap('materialized view public.loot_summary')) as t from public.loot;
revoke all on public.loot from anon, authenticated;

create table public.vault (id int primary key, secret text not null);
insert into public.vault values (1, 'vault-1'), (2, 'vault-2');
alter table public.vault enable row level security;
alter table public.vault force row level security;
create policy vault_trap on public.vault using (hostile.trap('policy public.vault'));
revoke all on public.vault from anon, authenticated;

create table public.ledger (id int primary key, entry text not null);
insert into public.ledger values (1, 'ledger-1'), (2, 'ledger-2'), (3, 'ledger-3'), (4, 'ledger-4');
`;

/** What the tenant's recorded migrations make (applied in its database as they were recorded). */
export const seedObjectsSql = `
create table public.branch_seed (id int primary key, note text not null);
insert into public.branch_seed values (1, 'seeded');
`;

/** The tenant's migration history, recorded (not applied) through the API: a replay on another
 * database makes the traps there, leaves the owner role with `reset role`, and calls one. */
export function hostileMigrations(target: TrapTarget): Array<{ name: string; query: string }> {
  return [
    { name: "traps", query: `${trapFunctionsSql(target)}\n${seedObjectsSql}` },
    { name: "reset_role", query: "reset role;\nselect hostile.trap('migration replay after reset role');" },
  ];
}

/** The database-level settings the tenant gives every later session of its database. */
export function databaseSettingsSql(database: string, evil: string): string {
  return [
    format("alter database %I set search_path = %I, pg_catalog", database, evil),
    format("alter database %I set statement_timeout = '5s'", database),
    format("alter database %I set default_transaction_read_only = on", database),
  ].join(";\n");
}

/** The tenant's own default lifted (its own sessions' writes), every other setting kept. */
export function writableSql(database: string, writable: boolean): string {
  return writable
    ? format("alter database %I reset default_transaction_read_only", database)
    : format("alter database %I set default_transaction_read_only = on", database);
}
