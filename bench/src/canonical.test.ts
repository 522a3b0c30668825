import assert from "node:assert/strict";
import { test } from "node:test";
import { canonicalFromGraphql, canonicalValue, firstDifference, sameAnswer } from "./canonical";

test("connections of every engine shape reduce to the same rows", () => {
  const sql = canonicalValue([{ id: 1, title: "a", createdAt: "2024-01-01T00:00:00+00:00" }]);
  const pgGraphql = canonicalFromGraphql({ result: { edges: [{ node: { title: "a", id: "1", createdAt: "2024-01-01T00:00:00Z" } }] } });
  const postgraphile = canonicalFromGraphql({ result: { nodes: [{ id: 1, title: "a", createdAt: "2024-01-01T00:00:00.000+00:00" }] } });
  assert.deepEqual(pgGraphql, sql);
  assert.deepEqual(postgraphile, sql);
});

test("aliased mutations are read in numeric order, one row each", () => {
  const data = {
    m10: { blogPost: { id: 10, status: "DRAFT" } },
    m2: { blogPost: { id: 2, status: "DRAFT" } },
    m1: { blogPost: { id: 1, status: "DRAFT" } },
  };
  assert.deepEqual(canonicalFromGraphql(data), [
    { id: 1, status: "draft" },
    { id: 2, status: "draft" },
    { id: 10, status: "draft" },
  ]);
});

test("pg_graphql mutation records are the rows", () => {
  assert.deepEqual(canonicalFromGraphql({ result: { records: [{ id: 5, title: "t" }] } }), [{ id: 5, title: "t" }]);
});

test("a differing answer is reported with the first place it differs", () => {
  const expected = canonicalValue([{ id: 1, posts: [{ id: 2 }] }]);
  const actual = canonicalValue([{ id: 1, posts: [{ id: 3 }] }]);
  assert.equal(sameAnswer(expected, actual), false);
  assert.match(firstDifference(expected, actual), /^\$\[0\]\.posts\[0\]\.id: expected 2, received 3$/);
  assert.match(firstDifference([1, 2], [1]), /2 rows expected, 1 received/);
});
