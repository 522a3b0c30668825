import { GraphQLEnumType, GraphQLInputObjectType, GraphQLInt, GraphQLList, GraphQLNonNull, GraphQLString } from "graphql";
import { describe, expect, it } from "vitest";
import { EnumLiteral } from "../document/inputValue";
import { coerceInput } from "./coerceInput";

const Direction = new GraphQLEnumType({ name: "OrderByDirection", values: { AscNullsFirst: {}, DescNullsLast: {} } });
const Filter = new GraphQLInputObjectType({
  name: "IntFilter",
  fields: { eq: { type: GraphQLInt }, in: { type: new GraphQLList(new GraphQLNonNull(GraphQLInt)) } },
});

describe("coerceInput", () => {
  it("accepts well-typed values, a single value for a list, enums as literals or strings", () => {
    expect(coerceInput({ eq: 1, in: 2 }, Filter)).toEqual({ eq: 1, in: [2] });
    expect(coerceInput(new EnumLiteral("AscNullsFirst"), Direction)).toBe("AscNullsFirst");
    expect(coerceInput("DescNullsLast", Direction)).toBe("DescNullsLast");
    expect(coerceInput(null, GraphQLString)).toBeNull();
  });

  it("rejects with pg_graphql's messages", () => {
    expect(() => coerceInput("1", GraphQLInt)).toThrow("Invalid input for Int type");
    expect(() => coerceInput(2 ** 31, GraphQLInt)).toThrow("Invalid input for Int type");
    expect(() => coerceInput(null, new GraphQLNonNull(GraphQLInt))).toThrow("Invalid input for NonNull type");
    expect(() => coerceInput(new EnumLiteral("Sideways"), Direction)).toThrow("Invalid input for OrderByDirection type");
    expect(() => coerceInput({ eq: 1, dne: 2 }, Filter)).toThrow('Input for type IntFilter contains extra keys ["dne"]');
    expect(() => coerceInput([1], Filter)).toThrow("Invalid input for IntFilter type");
  });
});
