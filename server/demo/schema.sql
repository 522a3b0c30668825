-- Demo schema loaded by `pg-graphql-server setup --demo` (and by the `demo` command): a small
-- blog whose rows row level security narrows per role, with introspection enabled for GraphiQL.
comment on schema public is e'@graphql({"inflect_names": true, "introspection": true})';

create table if not exists public.account (
  id serial primary key,
  email text not null unique,
  user_id uuid not null unique,
  created_at timestamptz not null default now()
);

create table if not exists public.blog (
  id serial primary key,
  owner_id integer not null references public.account (id),
  name text not null,
  description text,
  created_at timestamptz not null default now()
);

create table if not exists public.blog_post (
  id serial primary key,
  blog_id integer not null references public.blog (id),
  title text not null,
  body text,
  published boolean not null default false,
  created_at timestamptz not null default now()
);

-- Everyone reads blogs and published posts; signed-in users see their own account and drafts,
-- and write only under their own account.
alter table public.account enable row level security;
alter table public.blog enable row level security;
alter table public.blog_post enable row level security;

drop policy if exists account_self on public.account;
create policy account_self on public.account for all to authenticated
  using (user_id = auth.uid()) with check (user_id = auth.uid());

drop policy if exists blog_read on public.blog;
create policy blog_read on public.blog for select to anon, authenticated using (true);
drop policy if exists blog_write on public.blog;
create policy blog_write on public.blog for all to authenticated
  using (owner_id in (select id from public.account where user_id = auth.uid()))
  with check (owner_id in (select id from public.account where user_id = auth.uid()));

drop policy if exists post_read on public.blog_post;
create policy post_read on public.blog_post for select to anon, authenticated using (published);
drop policy if exists post_own on public.blog_post;
create policy post_own on public.blog_post for all to authenticated
  using (blog_id in (select b.id from public.blog b join public.account a on a.id = b.owner_id where a.user_id = auth.uid()))
  with check (blog_id in (select b.id from public.blog b join public.account a on a.id = b.owner_id where a.user_id = auth.uid()));

insert into public.account (email, user_id) values
  ('ada@example.com', '00000000-0000-4000-8000-00000000000a'),
  ('grace@example.com', '00000000-0000-4000-8000-00000000000b')
on conflict do nothing;

insert into public.blog (owner_id, name, description)
select a.id, v.name, v.description
  from (values
    ('ada@example.com', 'Engines', 'Notes on analytical engines'),
    ('grace@example.com', 'Compilers', 'From A-0 to COBOL')
  ) as v (email, name, description)
  join public.account a on a.email = v.email
 where not exists (select from public.blog);

insert into public.blog_post (blog_id, title, body, published)
select b.id, v.title, v.body, v.published
  from (values
    ('Engines', 'On the Difference Engine', 'Columns of wheels.', true),
    ('Engines', 'Note G', 'Bernoulli numbers, step by step.', true),
    ('Engines', 'Draft: looms', 'Punched cards, unfinished.', false),
    ('Compilers', 'A-0', 'The first compiler.', true),
    ('Compilers', 'Draft: FLOW-MATIC', 'English-like code.', false)
  ) as v (blog, title, body, published)
  join public.blog b on b.name = v.blog
 where not exists (select from public.blog_post);

-- Grants made before these tables existed cover them through default privileges; repeat them so
-- the file also works on a database whose defaults were set up differently.
grant all on all tables in schema public to anon, authenticated, service_role;
grant all on all sequences in schema public to anon, authenticated, service_role;
