// Bench stage: the opt-in features' workloads on the bench dataset. Output: a relation filter (as
// our API and PostGraphile v5 with postgraphile-plugin-connection-filter ask it, and as
// hand-written SQL), and an upsert and a nested insert as graphql.resolve calls and as the
// hand-written SQL doing the same and returning the same answer as jsonb.
import type { Dialect, Prepared } from "./queries";
import { unreachable, type BenchQuery } from "./queries";

/** The switches the section turns on for the bench schema (restored afterwards). */
export const featureSchemaComment = `@graphql({"inflect_names": true, "max_rows": 100, "relation_filters": true, "upsert": true, "nested_mutations": true})`;

/**
 * Blogs whose owner's number ends in 7 with at least one archived post: a to-one and a to-many
 * filter (on indexed columns: PostGraphile v5 filters on no other by default).
 */
export const relationFilterQuery: BenchQuery = {
  name: "relfilter",
  kind: "read",
  title: "relation filter (to-one and some), first 20",
  sql: `select coalesce(json_agg(json_build_object('id', b.id, 'title', b.title) order by b.id), '[]')::text as result
  from (select id, title from blog b
    where exists (select from account a where a.id = b.owner_id and a.email like '%7@example.com')
      and exists (select from blog_post p where p.blog_id = b.id and p.status = 'archived')
    order by b.id limit 20) b`,
  graphql: (d: Dialect, _p: Prepared) => {
    switch (d) {
      case "pg_graphql":
        return `{ result: blogCollection(first: 20, orderBy: [{id: AscNullsLast}], filter: {owner: {email: {like: "%7@example.com"}}, blogPostCollection: {some: {status: {eq: archived}}}}) { edges { node { id title } } } }`;
      case "postgraphile5":
        return `{ result: allBlogs(first: 20, orderBy: [PRIMARY_KEY_ASC], filter: {accountByOwnerId: {email: {like: "%7@example.com"}}, blogPostsByBlogId: {some: {status: {equalTo: archived}}}}) { nodes { id: rowId title } } }`;
      case "postgraphile4":
        throw new Error("the relation filter is compared with PostGraphile v5 only");
      default:
        return unreachable(d);
    }
  },
};

/**
 * An upsert of one account on its unique email, updating its name. `{k}` is the account's
 * number: `:k` in a pgbench script, `$1` when run once. No `:` of the text is followed by a
 * name, which pgbench would read as a variable.
 */
export const upsertGraphql = `mutation($email: String!, $name: String!) { result: insertIntoAccountCollection(objects: [{email: $email, name: $name}],
  onConflict: {constraint: account_email_key, updateFields: [name]}) { affectedCount records { id email name } } }`;

export function upsertVariablesSql(k: string): string {
  return `jsonb_build_object('email', 'user' || (${k})::text || '@example.com', 'name', 'User ' || (${k})::text)`;
}

export function upsertFloorSql(k: string): string {
  return `with w as (insert into account (email, name) values ('user' || (${k})::text || '@example.com', 'User ' || (${k})::text)
    on conflict on constraint account_email_key do update set name = excluded.name returning id, email, name)
  select jsonb_build_object('data', jsonb_build_object('result', jsonb_build_object(
    'affectedCount', (select count(*) from w),
    'records', coalesce((select jsonb_agg(jsonb_build_object('id', w.id, 'email', w.email, 'name', w.name)) from w), '[]'::jsonb)))) as result`;
}

const nestedOwner = 7;
const nestedTitles = Array.from({ length: 10 }, (_, i) => `Nested ${i + 1}`);

/** One blog with ten posts, and the blog with its posts back. */
export const nestedGraphql = `mutation { result: insertIntoBlogCollection(objects: [{ownerId: ${nestedOwner}, title: "Nested", blogPostCollection: {objects: [${nestedTitles
  .map((t) => `{title: "${t}"}`)
  .join(", ")}]}}]) { affectedCount records { id title posts: blogPostCollection(orderBy: [{id: AscNullsLast}]) { edges { node { id title } } } } } }`;

/**
 * The hand-written floor of the nested insert: the same statements in the same order, in the
 * database (a PL/pgSQL function of a schema the API does not reflect, run as the caller): the
 * blog, its posts, then the answer read back, as the nested insert must (a child's policy may
 * check its parent, and the answer must see the children). `nestedOneStatementSql` is the same
 * work as one statement with data-modifying CTEs, shown beside it.
 */
export const nestedFloorSetup = `create schema if not exists bench_floor;
grant usage on schema bench_floor to authenticated;
create or replace function bench_floor.nested_insert() returns jsonb language plpgsql as $$
declare b record;
begin
  insert into public.blog (owner_id, title) values (${nestedOwner}, 'Nested') returning id, title into b;
  insert into public.blog_post (blog_id, title)
    select b.id, t.title from (values ${nestedTitles.map((t, i) => `(${i + 1}, '${t}')`).join(", ")}) as t(n, title) order by t.n;
  return jsonb_build_object('data', jsonb_build_object('result', jsonb_build_object('affectedCount', 1,
    'records', jsonb_build_array(jsonb_build_object('id', b.id, 'title', b.title, 'posts', jsonb_build_object('edges',
      coalesce((select jsonb_agg(jsonb_build_object('node', jsonb_build_object('id', p.id, 'title', p.title)) order by p.id)
        from public.blog_post p where p.blog_id = b.id), '[]'::jsonb)))))));
end
$$;`;

export const nestedFloorSql = "select bench_floor.nested_insert() as result";

export const nestedOneStatementSql = `with b as (insert into blog (owner_id, title) values (${nestedOwner}, 'Nested') returning id, title),
  p as (insert into blog_post (blog_id, title)
    select b.id, t.title from b, (values ${nestedTitles.map((t, i) => `(${i + 1}, '${t}')`).join(", ")}) as t(n, title) order by t.n
    returning id, title)
  select jsonb_build_object('data', jsonb_build_object('result', jsonb_build_object('affectedCount', 1,
    'records', jsonb_build_array(jsonb_build_object('id', b.id, 'title', b.title, 'posts', jsonb_build_object('edges',
      coalesce((select jsonb_agg(jsonb_build_object('node', jsonb_build_object('id', p.id, 'title', p.title)) order by p.id) from p), '[]'::jsonb))))))) as result
  from b`;
