import { describe, expect, it } from "vitest";
import { errorAnswer } from "./errorAnswer";

const pgError = (message: string, sqlerrcode: string) => Object.assign(new Error(message), { sqlerrcode });

describe("errorAnswer", () => {
  it("answers a database error with its message", () => {
    const answer = errorAnswer(pgError('duplicate key value violates unique constraint "account_pkey"', "23505"));
    expect(JSON.parse(answer)).toEqual({ data: null, errors: [{ message: 'duplicate key value violates unique constraint "account_pkey"' }] });
  });

  it("keeps a JS error's kind but not the generic prefix", () => {
    expect(JSON.parse(errorAnswer(new RangeError("Maximum call stack size exceeded"))).errors[0].message).toBe(
      "RangeError: Maximum call stack size exceeded",
    );
    expect(JSON.parse(errorAnswer(new Error("boom"))).errors[0].message).toBe("boom");
  });

  it("throws a cancel, a statement timeout or a failed assertion again", () => {
    const cancel = pgError("canceling statement due to statement timeout", "57014");
    expect(() => errorAnswer(cancel)).toThrow(cancel);
    const assertion = pgError("assertion failed", "P0004");
    expect(() => errorAnswer(assertion)).toThrow(assertion);
  });
});
