// Pure tests of the lazily collected schema: it must answer exactly like graphql-js's own.
import { describe, expect, it } from "vitest";
import {
  GraphQLInterfaceType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  printSchema,
  validateSchema,
} from "graphql";
import { lazySchema } from "./lazySchema";

function types() {
  let forced = 0;
  const node = new GraphQLInterfaceType({ name: "Node", fields: { id: { type: new GraphQLNonNull(GraphQLString) } } });
  const item: GraphQLObjectType = new GraphQLObjectType({
    name: "Item",
    interfaces: [node],
    fields: () => {
      forced++;
      return { id: { type: new GraphQLNonNull(GraphQLString) }, children: { type: new GraphQLList(item) } };
    },
  });
  const query = new GraphQLObjectType({ name: "Query", fields: { item: { type: item } } });
  const mutation = new GraphQLObjectType({ name: "Mutation", fields: { touch: { type: item } } });
  return { node, item, query, mutation, forcedCount: () => forced };
}

describe("lazySchema", () => {
  it("leaves field thunks alone until the type map is asked for", () => {
    const t = types();
    const schema = lazySchema({ query: t.query, mutation: t.mutation, types: [t.node] });
    expect(schema).toBeInstanceOf(GraphQLSchema);
    expect(schema.getQueryType()).toBe(t.query);
    expect(schema.getMutationType()).toBe(t.mutation);
    expect(t.forcedCount()).toBe(0);
    expect(schema.getType("Item")).toBe(t.item);
    expect(t.forcedCount()).toBe(1);
  });

  it("has the same type map, implementations, directives and printed SDL as an eagerly built schema", () => {
    const a = types();
    const lazy = lazySchema({ query: a.query, mutation: a.mutation, types: [a.node] });
    const eager = new GraphQLSchema({ query: a.query, mutation: a.mutation, types: [a.node] });
    expect(Object.keys(lazy.getTypeMap())).toEqual(Object.keys(eager.getTypeMap()));
    expect(lazy.getPossibleTypes(a.node)).toEqual(eager.getPossibleTypes(a.node));
    expect(lazy.isSubType(a.node, a.item)).toBe(true);
    expect(lazy.getDirectives()).toEqual(eager.getDirectives());
    expect(lazy.getSubscriptionType()).toBeUndefined();
    expect(printSchema(lazy)).toBe(printSchema(eager));
    expect(validateSchema(lazy)).toEqual([]);
  });
});
