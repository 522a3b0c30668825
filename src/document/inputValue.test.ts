import { GraphQLFloat, GraphQLInt, GraphQLScalarType, GraphQLString, parse, type OperationDefinitionNode } from "graphql";
import { describe, expect, it } from "vitest";
import { coerceInput } from "../plan/coerceInput";
import { LargeIntLiteral, VariableScope } from "./inputValue";

const BigIntScalar = new GraphQLScalarType({ name: "BigInt" });
const BigFloatScalar = new GraphQLScalarType({ name: "BigFloat" });

function literal(text: string) {
  const op = parse(`{ f(x: ${text}) }`).definitions[0] as OperationDefinitionNode;
  const field = op.selectionSet.selections[0]!;
  if (field.kind !== "Field") throw new Error("expected a field");
  return new VariableScope(op, {}).value(field.arguments![0]!.value);
}

describe("integer literals", () => {
  it("stay numbers while a JS number holds them exactly", () => {
    expect(literal("9007199254740991")).toBe(9007199254740991);
    expect(literal("-12")).toBe(-12);
  });

  it("past 2^53 keep every digit for BigInt, and are checked as numbers elsewhere", () => {
    const big = literal("9007199254740993");
    expect(big).toEqual(new LargeIntLiteral("9007199254740993"));
    expect(coerceInput(big, BigIntScalar)).toBe("9007199254740993");
    expect(coerceInput(literal("-92233720368547758070"), BigIntScalar)).toBe("-92233720368547758070");
    expect(coerceInput(big, GraphQLFloat)).toBe(9007199254740992);
    expect(() => coerceInput(big, GraphQLInt)).toThrow("Invalid input for Int type");
    expect(() => coerceInput(big, GraphQLString)).toThrow("Invalid input for String type");
    expect(() => coerceInput(big, BigFloatScalar)).toThrow("Invalid input for BigFloat type. String required");
  });
});
