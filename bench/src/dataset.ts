// Bench stage: dataset. Input: a scale name. Output: the bench schema (account → blog →
// blog_post with an enum status), deterministic rows, the hosted-style roles, and a reset.
import type pg from "pg";

export interface Scale {
  kind: "default" | "large";
  accounts: number;
  blogs: number;
  posts: number;
}

export function scaleNamed(name: string): Scale {
  switch (name) {
    case "default":
      return { kind: "default", accounts: 1_000, blogs: 2_000, posts: 10_000 };
    case "large":
      return { kind: "large", accounts: 100_000, blogs: 300_000, posts: 3_000_000 };
    default:
      throw new Error(`unknown scale ${JSON.stringify(name)}: use "default" or "large"`);
  }
}

/** The post every update-by-id request rewrites; reset restores its title. */
export const updateTargetId = 42;

const schemaSql = `
create type post_status as enum ('draft', 'published', 'archived');
create table account (
  id serial primary key,
  email text not null unique,
  name text not null,
  created_at timestamptz not null default now()
);
create table blog (
  id serial primary key,
  owner_id integer not null references account (id),
  title text not null,
  created_at timestamptz not null default now()
);
create table blog_post (
  id serial primary key,
  blog_id integer not null references blog (id),
  title text not null,
  body text not null default '',
  status post_status not null default 'draft',
  created_at timestamptz not null default now()
);
create index blog_owner_id_idx on blog (owner_id);
create index blog_post_blog_id_idx on blog_post (blog_id);
create index blog_post_status_created_at_idx on blog_post (status, created_at desc);
-- pg_graphql's options: camelCase names, pages up to 100 rows (its default caps them at 30),
-- and totalCount, which it offers only where a table opts in.
comment on schema public is '@graphql({"inflect_names": true, "max_rows": 100})';
comment on table blog_post is '@graphql({"totalCount": {"enabled": true}})';
`;

// Rows are pure functions of their id: the same scale always yields byte-identical tables.
// created_at uses (i * 7919) mod n, a permutation of 0..n-1 since 7919 is prime and divides no
// scale, so every ordering by created_at is total and identical across engines.
const fillSql = [
  `insert into account (id, email, name, created_at)
     select i, 'user' || i || '@example.com', 'User ' || i,
            timestamptz '2024-01-01 00:00:00+00' + ((i::bigint * 7919) % $1) * interval '1 minute'
       from generate_series(1, $1::int) as i`,
  `insert into blog (id, owner_id, title, created_at)
     select i, ((i - 1) % $2) + 1, 'Blog ' || i,
            timestamptz '2024-01-01 00:00:00+00' + ((i::bigint * 7919) % $1) * interval '1 minute'
       from generate_series(1, $1::int) as i`,
  `insert into blog_post (id, blog_id, title, body, status, created_at)
     select i, ((i - 1) % $2) + 1, 'Post ' || i, repeat('lorem ipsum ', 1 + i % 8),
            (case when (i * 7) % 10 < 6 then 'published' when (i * 7) % 10 < 8 then 'draft' else 'archived' end)::post_status,
            timestamptz '2024-01-01 00:00:00+00' + ((i::bigint * 7919) % $1) * interval '1 minute'
       from generate_series(1, $1::int) as i`,
];

const rolesSql = `
do $$
begin
  if not exists (select from pg_roles where rolname = 'anon') then create role anon nologin noinherit; end if;
  if not exists (select from pg_roles where rolname = 'authenticated') then create role authenticated nologin noinherit; end if;
  if not exists (select from pg_roles where rolname = 'service_role') then create role service_role nologin noinherit bypassrls; end if;
  if not exists (select from pg_roles where rolname = 'authenticator') then create role authenticator login noinherit; end if;
end
$$;
grant anon, authenticated, service_role to authenticator;
grant usage on schema public to anon, authenticated, service_role;
grant select on all tables in schema public to anon, authenticated, service_role;
grant insert, update, delete on all tables in schema public to authenticated, service_role;
grant usage, select on all sequences in schema public to authenticated, service_role;
`;

export async function createDataset(client: pg.Client, scale: Scale): Promise<void> {
  await client.query(schemaSql);
  await client.query(fillSql[0]!, [scale.accounts]);
  await client.query(fillSql[1]!, [scale.blogs, scale.accounts]);
  await client.query(fillSql[2]!, [scale.posts, scale.blogs]);
  await client.query(`select setval('account_id_seq', $1), setval('blog_id_seq', $2), setval('blog_post_id_seq', $3)`, [
    scale.accounts,
    scale.blogs,
    scale.posts,
  ]);
  await client.query(rolesSql);
  await client.query("vacuum analyze");
}

/** Puts the mutated table back to its generated state, so every mutation run starts equal. */
export async function resetDataset(client: pg.Client, scale: Scale): Promise<void> {
  await waitUntilQuiet(client);
  await client.query("begin");
  try {
    await client.query("lock table blog_post in exclusive mode");
    await client.query("delete from blog_post where id > $1", [scale.posts]);
    await client.query("update blog_post set title = 'Post ' || id where id = $1", [updateTargetId]);
    await client.query("select setval('blog_post_id_seq', $1)", [scale.posts]);
    await client.query("commit");
  } catch (e) {
    await client.query("rollback");
    throw e;
  }
}

/**
 * Waits until no API connection is running a statement. A load generator stops at its deadline
 * while the engine may still be working through queued requests; resetting under them would
 * let their inserts collide with the reset sequence.
 */
export async function waitUntilQuiet(client: pg.Client, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let quietPolls = 0;
  while (Date.now() < deadline) {
    const { rows } = await client.query<{ busy: number }>(
      "select count(*)::int as busy from pg_stat_activity where usename = 'authenticator' and state is distinct from 'idle' and pid <> pg_backend_pid()",
    );
    quietPolls = rows[0]!.busy === 0 ? quietPolls + 1 : 0;
    if (quietPolls >= 3) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("the engines kept running statements after the load stopped");
}
