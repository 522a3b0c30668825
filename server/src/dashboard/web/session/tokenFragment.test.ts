import { describe, expect, it } from "vitest";
import { readFragment } from "./tokenFragment";

const token = "sbp_0123456789abcdef0123456789abcdef01234567";

describe("readFragment", () => {
  it("signs in with the token and opens the page named by `to`", () => {
    expect(readFragment(`#token=${token}&to=/project/abc/sql`)).toEqual({ kind: "signIn", token, to: "/project/abc/sql" });
    expect(readFragment(`#token=${token}`)).toEqual({ kind: "signIn", token, to: "/" });
  });

  it("reads an encoded `to`", () => {
    expect(readFragment(`#token=${token}&to=${encodeURIComponent("/project/abc/logs")}`)).toMatchObject({ to: "/project/abc/logs" });
  });

  it("opens the first page for a `to` that is not a path of the app", () => {
    for (const to of ["https://example.com/", "//example.com", "project/abc", "/a b", "/a\\b"]) {
      expect(readFragment(`#token=${token}&to=${encodeURIComponent(to)}`)).toMatchObject({ to: "/" });
    }
  });

  it("treats routes and empty tokens as routes", () => {
    expect(readFragment("#/project/abc")).toEqual({ kind: "route" });
    expect(readFragment("")).toEqual({ kind: "route" });
    expect(readFragment("#token=")).toEqual({ kind: "route" });
    expect(readFragment("#/token=abc")).toEqual({ kind: "route" });
  });
});
