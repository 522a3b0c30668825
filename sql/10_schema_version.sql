-- The schema version: a counter that any DDL bumps, so per-backend caches of the reflected
-- schema know when to reload. Sequences are not transactional, which is what we want here:
-- every backend sees the bump at once.
create sequence graphql.seq_schema_version as int cycle;
-- Every caller's resolver reads it on each request to validate its cached schema.
grant select on graphql.seq_schema_version to public;

create function graphql.increment_schema_version()
    returns event_trigger
    security definer
    set search_path = pg_catalog
    language plpgsql
as $$
begin
    perform pg_catalog.nextval('graphql.seq_schema_version');
end;
$$;

create function graphql.get_schema_version()
    returns int
    security definer
    set search_path = pg_catalog
    language sql
as $$
    select last_value from graphql.seq_schema_version;
$$;

create event trigger graphql_watch_ddl
    on ddl_command_end
    execute procedure graphql.increment_schema_version();

create event trigger graphql_watch_drop
    on sql_drop
    execute procedure graphql.increment_schema_version();
