-- Helpers kept for compatibility with code written against pg_graphql.

-- The JSON inside a comment's `@graphql(...)` directive: from the first "@graphql(" to the last
-- ")", so parentheses inside the JSON are kept. `{}` when the comment has no directive.
create function graphql.comment_directive(comment_ text)
    returns jsonb
    immutable
    language sql
as $$
    select coalesce(
        (pg_catalog.regexp_match(comment_, '@graphql\((.+)\)', 's'))[1]::jsonb,
        '{}'::jsonb
    );
$$;

-- Raises an error with the given message (SQLSTATE 22000), usable from SQL expressions.
create function graphql.exception(message text)
    returns text
    language plpgsql
as $$
begin
    raise exception using errcode = '22000', message = message;
end;
$$;
