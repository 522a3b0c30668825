import { describe, expect, it } from "vitest";
import { errorPosition } from "./sqlErrorPosition";

describe("errorPosition", () => {
  it("finds the caret's character in the text", () => {
    const text = "select 1;\nselect * from nowhere;";
    const message = 'Failed to run sql query: ERROR:  42P01: relation "nowhere" does not exist\nLINE 2: select * from nowhere;\n                      ^';
    const position = errorPosition(message, text)!;
    expect(position).toEqual({ line: 2, column: 15, offset: 24 });
    expect(text.slice(position.offset, position.offset + 7)).toBe("nowhere");
  });

  it("has no position when the report names none", () => {
    expect(errorPosition("Failed to run sql query: ERROR:  57014: canceling statement", "select pg_sleep(9)")).toBeUndefined();
    expect(errorPosition("LINE 9: x\n        ^", "one line")).toBeUndefined();
  });
});
