// Bench stage: workload. Input: an engine's dialect and its prepared identifiers (node id,
// cursor). Output: for each bench query, the hand-written SQL (which answers in the canonical
// shape), the GraphQL text for each dialect, and the extraction of canonical rows from a response.
import { updateTargetId } from "./dataset";

export type Dialect = "pg_graphql" | "postgraphile4" | "postgraphile5";

/** Identifiers that differ by engine and are fetched from it before any timing. */
export interface Prepared {
  nodeId: string;
  page49Cursor: string;
}

export interface BenchQuery {
  name: string;
  kind: "read" | "write";
  title: string;
  /** One statement whose single column `result` is the canonical answer as JSON text. */
  sql: string;
  graphql(dialect: Dialect, prepared: Prepared): string;
}

export const nodeTargetId = 777;
export const pageSize = 20;
export const targetPage = 50;
const insertBlogId = 7;

/** `id` in the canonical shape is the primary key; PostGraphile v5 calls that column `rowId`. */
function pk(d: Dialect): string {
  switch (d) {
    case "pg_graphql":
    case "postgraphile4":
      return "id";
    case "postgraphile5":
      return "id: rowId";
    default:
      return unreachable(d);
  }
}

function statusValue(d: Dialect, value: "published" | "draft"): string {
  return d === "postgraphile4" ? value.toUpperCase() : value;
}

/** A list of blog posts ordered by id, the shape shared by the shallow and paginated queries. */
function postsById(d: Dialect, args: string, fields: string): string {
  switch (d) {
    case "pg_graphql":
      return `blogPostCollection(${args}, orderBy: [{id: AscNullsLast}]) { ${fields} }`;
    case "postgraphile4":
    case "postgraphile5":
      return `allBlogPosts(${args}, orderBy: [PRIMARY_KEY_ASC]) { ${fields} }`;
    default:
      return unreachable(d);
  }
}

function rows(d: Dialect, fields: string): string {
  return d === "pg_graphql" ? `edges { node { ${fields} } }` : `nodes { ${fields} }`;
}

const jsonPost = (alias: string) => `json_build_object('id', ${alias}.id, 'title', ${alias}.title)`;

const insertTitles = Array.from({ length: 10 }, (_, i) => `Bench insert ${i + 1}`);

function insertMutation(d: Dialect, count: number): string {
  const titles = insertTitles.slice(0, count);
  switch (d) {
    case "pg_graphql": {
      const objects = titles.map((t) => `{blogId: ${insertBlogId}, title: ${JSON.stringify(t)}, body: "", status: draft}`);
      return `mutation { result: insertIntoBlogPostCollection(objects: [${objects.join(", ")}]) { records { id title blogId status } } }`;
    }
    case "postgraphile4":
    case "postgraphile5": {
      // Neither PostGraphile has a bulk insert without plugins: one aliased mutation per row.
      const fields = titles.map(
        (t, i) =>
          `m${i + 1}: createBlogPost(input: {blogPost: {blogId: ${insertBlogId}, title: ${JSON.stringify(t)}, body: "", status: ${statusValue(d, "draft")}}}) { blogPost { ${pk(d)} title blogId status } }`,
      );
      return `mutation { ${fields.join(" ")} }`;
    }
    default:
      return unreachable(d);
  }
}

function insertSql(count: number): string {
  const values = insertTitles
    .slice(0, count)
    .map((t) => `(${insertBlogId}, '${t}', '', 'draft')`)
    .join(", ");
  return `with ins as (insert into blog_post (blog_id, title, body, status) values ${values} returning id, title, blog_id, status)
select coalesce(json_agg(json_build_object('id', id, 'title', title, 'blogId', blog_id, 'status', status) order by id), '[]')::text as result from ins`;
}

export const benchQueries: BenchQuery[] = [
  {
    name: "node",
    kind: "read",
    title: "node by nodeId",
    sql: `select json_build_object('id', p.id, 'title', p.title, 'status', p.status)::text as result from blog_post p where p.id = ${nodeTargetId}`,
    graphql: (d, p) => {
      const arg = d === "postgraphile5" ? "id" : "nodeId";
      return `{ result: node(${arg}: ${JSON.stringify(p.nodeId)}) { ... on BlogPost { ${pk(d)} title status } } }`;
    },
  },
  {
    name: "shallow",
    kind: "read",
    title: "list, first 20",
    sql: `select json_agg(${jsonPost("p")} order by p.id)::text as result from (select id, title from blog_post order by id limit 20) p`,
    graphql: (d) => `{ result: ${postsById(d, "first: 20", rows(d, `${pk(d)} title`))} }`,
  },
  {
    name: "filtered",
    kind: "read",
    title: "filter + order, first 50",
    sql: `select json_agg(json_build_object('id', p.id, 'title', p.title, 'createdAt', p.created_at) order by p.created_at desc)::text as result
  from (select id, title, created_at from blog_post where status = 'published' order by created_at desc limit 50) p`,
    graphql: (d) => {
      const fields = rows(d, `${pk(d)} title createdAt`);
      switch (d) {
        case "pg_graphql":
          // DescNullsFirst is PostgreSQL's own `desc`, the order the index is built in (and what
          // PostGraphile's CREATED_AT_DESC asks for); created_at is not null, so both agree.
          return `{ result: blogPostCollection(first: 50, filter: {status: {eq: published}}, orderBy: [{createdAt: DescNullsFirst}]) { ${fields} } }`;
        case "postgraphile4":
        case "postgraphile5":
          return `{ result: allBlogPosts(first: 50, condition: {status: ${statusValue(d, "published")}}, orderBy: [CREATED_AT_DESC]) { ${fields} } }`;
        default:
          return unreachable(d);
      }
    },
  },
  {
    name: "nested",
    kind: "read",
    title: "nested 3 levels",
    sql: `select json_agg(json_build_object('id', a.id, 'name', a.name, 'blogs',
    (select coalesce(json_agg(json_build_object('id', b.id, 'title', b.title, 'posts',
        (select coalesce(json_agg(${jsonPost("p")} order by p.id), '[]') from blog_post p where p.blog_id = b.id)) order by b.id), '[]')
       from blog b where b.owner_id = a.id)) order by a.id)::text as result
  from (select id, name from account order by id limit 20) a`,
    graphql: (d) => {
      const id = pk(d);
      switch (d) {
        case "pg_graphql":
          return `{ result: accountCollection(first: 20, orderBy: [{id: AscNullsLast}]) { edges { node { id name
  blogs: blogCollection(orderBy: [{id: AscNullsLast}]) { edges { node { id title
    posts: blogPostCollection(orderBy: [{id: AscNullsLast}]) { edges { node { id title } } } } } } } } } }`;
        case "postgraphile4":
        case "postgraphile5":
          return `{ result: allAccounts(first: 20, orderBy: [PRIMARY_KEY_ASC]) { nodes { ${id} name
  blogs: blogsByOwnerId(orderBy: [PRIMARY_KEY_ASC]) { nodes { ${id} title
    posts: blogPostsByBlogId(orderBy: [PRIMARY_KEY_ASC]) { nodes { ${id} title } } } } } } }`;
        default:
          return unreachable(d);
      }
    },
  },
  {
    name: "page50",
    kind: "read",
    title: "cursor to page 50",
    sql: `select json_agg(${jsonPost("p")} order by p.id)::text as result
  from (select id, title from blog_post where id > ${(targetPage - 1) * pageSize} order by id limit ${pageSize}) p`,
    graphql: (d, p) => `{ result: ${postsById(d, `first: ${pageSize}, after: ${JSON.stringify(p.page49Cursor)}`, rows(d, `${pk(d)} title`))} }`,
  },
  {
    name: "count",
    kind: "read",
    title: "totalCount, filtered",
    sql: `select json_build_object('totalCount', count(*))::text as result from blog_post where status = 'published'`,
    graphql: (d) => {
      switch (d) {
        case "pg_graphql":
          return `{ result: blogPostCollection(filter: {status: {eq: published}}) { totalCount } }`;
        case "postgraphile4":
        case "postgraphile5":
          return `{ result: allBlogPosts(condition: {status: ${statusValue(d, "published")}}) { totalCount } }`;
        default:
          return unreachable(d);
      }
    },
  },
  {
    name: "insert1",
    kind: "write",
    title: "insert 1 row",
    sql: insertSql(1),
    graphql: (d) => insertMutation(d, 1),
  },
  {
    name: "insert10",
    kind: "write",
    title: "insert 10 rows",
    sql: insertSql(10),
    graphql: (d) => insertMutation(d, 10),
  },
  {
    name: "update",
    kind: "write",
    title: "update by id",
    sql: `with upd as (update blog_post set title = 'Bench update' where id = ${updateTargetId} returning id, title)
select coalesce(json_agg(${jsonPost("upd")}), '[]')::text as result from upd`,
    graphql: (d) => {
      switch (d) {
        case "pg_graphql":
          return `mutation { result: updateBlogPostCollection(set: {title: "Bench update"}, filter: {id: {eq: ${updateTargetId}}}, atMost: 1) { records { id title } } }`;
        case "postgraphile4":
          return `mutation { m1: updateBlogPostById(input: {id: ${updateTargetId}, blogPostPatch: {title: "Bench update"}}) { blogPost { id title } } }`;
        case "postgraphile5":
          return `mutation { m1: updateBlogPostByRowId(input: {rowId: ${updateTargetId}, blogPostPatch: {title: "Bench update"}}) { blogPost { id: rowId title } } }`;
        default:
          return unreachable(d);
      }
    },
  },
];

/** GraphQL that reads what `Prepared` needs from an engine (node id of the target post). */
export function nodeIdQuery(d: Dialect): string {
  switch (d) {
    case "pg_graphql":
      return `{ result: blogPostCollection(filter: {id: {eq: ${nodeTargetId}}}) { edges { node { nodeId } } } }`;
    case "postgraphile4":
      return `{ result: blogPostById(id: ${nodeTargetId}) { nodeId } }`;
    case "postgraphile5":
      return `{ result: blogPostByRowId(rowId: ${nodeTargetId}) { nodeId: id } }`;
    default:
      return unreachable(d);
  }
}

/** One page of the id-ordered list, asking only for where it ends. */
export function pageQuery(d: Dialect, after: string | null): string {
  const args = after === null ? `first: ${pageSize}` : `first: ${pageSize}, after: ${JSON.stringify(after)}`;
  return `{ result: ${postsById(d, args, "pageInfo { endCursor }")} }`;
}

export function unreachable(value: never): never {
  throw new Error(`unreachable: ${JSON.stringify(value)}`);
}
