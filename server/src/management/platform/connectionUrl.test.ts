import { describe, expect, it } from "vitest";
import { withoutPassword } from "./connectionUrl";

describe("withoutPassword", () => {
  it("takes the password out of the URL and decodes it", () => {
    expect(withoutPassword("postgresql://admin:p%40ss:w@db.example:5433/app?sslmode=require")).toEqual({
      url: "postgresql://admin@db.example:5433/app?sslmode=require",
      password: "p@ss:w",
    });
  });

  it("leaves URLs without a password or user as they are", () => {
    expect(withoutPassword("postgresql://postgres@/db?host=%2Ftmp")).toEqual({ url: "postgresql://postgres@/db?host=%2Ftmp", password: undefined });
    expect(withoutPassword("postgresql:///db")).toEqual({ url: "postgresql:///db", password: undefined });
  });
});
