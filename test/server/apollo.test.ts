// A real GraphQL client against the endpoint: Apollo Client with its normalized cache pages
// through the demo's posts with fetchMore over endCursor, then inserts a post as a signed-in user.
import { afterAll, beforeAll, expect, it } from "vitest";
import { ApolloClient, HttpLink, InMemoryCache, gql, type ApolloQueryResult } from "@apollo/client/core/index.js";
import { relayStylePagination } from "@apollo/client/utilities/index.js";
import { reflectsTables, runsMutations, signToken, startTestServer, type TestServer } from "./support";

const ada = "00000000-0000-4000-8000-00000000000a";

const postsQuery = gql`
  query Posts($after: Cursor) {
    blogPostCollection(first: 2, after: $after, orderBy: [{ id: AscNullsLast }]) {
      edges {
        cursor
        node {
          id
          title
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`;

const insertPost = gql`
  mutation AddPost($objects: [BlogPostInsertInput!]!) {
    insertIntoBlogPostCollection(objects: $objects) {
      affectedCount
      records {
        id
        title
        blogId
      }
    }
  }
`;

interface PostsData {
  blogPostCollection: {
    edges: Array<{ cursor: string; node: { id: number; title: string } }>;
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  };
}

let server: TestServer;
let ready = false;
let mutations = false;

function client(headers: Record<string, string>): ApolloClient<unknown> {
  return new ApolloClient({
    link: new HttpLink({ uri: server.endpoint, headers, fetch }),
    cache: new InMemoryCache({ typePolicies: { Query: { fields: { blogPostCollection: relayStylePagination() } } } }),
  });
}

beforeAll(async () => {
  server = await startTestServer({ demo: true });
  ready = await reflectsTables(server, "blogPostCollection");
  mutations = ready && (await runsMutations(server, "BlogPostCollection"));
});
afterAll(async () => server.close());

it("pages through posts with fetchMore over endCursor", async (ctx) => {
  if (!ready) ctx.skip();
  const expected = (await server.db.query("select title from public.blog_post order by id")).rows.map((r) => r.title);
  expect(expected.length).toBe(5);
  const apollo = client({ apikey: server.serviceKey });
  const titles = (data: PostsData | undefined) => data?.blogPostCollection.edges.map((e) => e.node.title);

  const watched = apollo.watchQuery<PostsData>({ query: postsQuery });
  let subscription: { unsubscribe(): void } | undefined;
  const first = await new Promise<ApolloQueryResult<PostsData>>((resolve, reject) => {
    subscription = watched.subscribe({ next: (r) => !r.loading && resolve(r), error: reject });
  });
  expect(titles(first.data)).toEqual(expected.slice(0, 2));
  expect(first.data.blogPostCollection.pageInfo.hasNextPage).toBe(true);

  // Each fetchMore asks for the page after endCursor; the cache merges it into the list.
  await watched.fetchMore({ variables: { after: first.data.blogPostCollection.pageInfo.endCursor } });
  const twoPages = watched.getCurrentResult().data;
  expect(titles(twoPages)).toEqual(expected.slice(0, 4));
  expect(twoPages?.blogPostCollection.pageInfo.hasNextPage).toBe(true);

  await watched.fetchMore({ variables: { after: twoPages?.blogPostCollection.pageInfo.endCursor } });
  const all = watched.getCurrentResult().data;
  expect(titles(all)).toEqual(expected);
  expect(all?.blogPostCollection.pageInfo.hasNextPage).toBe(false);
  subscription?.unsubscribe();
  apollo.stop();
});

it("inserts a post as its signed-in owner", async (ctx) => {
  if (!mutations) ctx.skip();
  const { rows } = await server.db.query(
    "select b.id from public.blog b join public.account a on a.id = b.owner_id where a.user_id = $1",
    [ada],
  );
  const blogId = rows[0].id as number;
  const token = await signToken({ role: "authenticated", sub: ada });
  const apollo = client({ apikey: server.anonKey, authorization: `Bearer ${token}` });

  const result = await apollo.mutate({
    mutation: insertPost,
    variables: { objects: [{ blogId, title: "Written with Apollo", published: true }] },
  });
  expect(result.errors).toBeUndefined();
  const inserted = result.data.insertIntoBlogPostCollection;
  expect(inserted.affectedCount).toBe(1);
  expect(inserted.records).toEqual([expect.objectContaining({ title: "Written with Apollo", blogId })]);

  const stored = await server.db.query("select blog_id, published from public.blog_post where title = 'Written with Apollo'");
  expect(stored.rows).toEqual([{ blog_id: blogId, published: true }]);
  // Ada may not write into another owner's blog: RLS rejects it and nothing is stored.
  const other = await server.db.query("select id from public.blog where id <> $1 limit 1", [blogId]);
  const refused = await apollo
    .mutate({ mutation: insertPost, variables: { objects: [{ blogId: other.rows[0].id, title: "Not mine" }] } })
    .then((r) => r.errors ?? [], (e: Error) => [e]);
  expect(refused.length).toBeGreaterThan(0);
  expect((await server.db.query("select 1 from public.blog_post where title = 'Not mine'")).rowCount).toBe(0);
  apollo.stop();
});
