// Pure tests of the schema stage's naming: database names → GraphQL names.
import { describe, expect, it } from "vitest";
import { camelCase, isValidName, pascalCase } from "./inflection";

describe("inflection", () => {
  it("camel- and pascal-cases snake_case names", () => {
    expect(pascalCase("blog_post")).toBe("BlogPost");
    expect(camelCase("blog_post")).toBe("blogPost");
    expect(camelCase("created_at")).toBe("createdAt");
    expect(pascalCase("AccountHolder")).toBe("AccountHolder");
    expect(camelCase("AccountHolder")).toBe("accountHolder");
    expect(camelCase("_full_name")).toBe("fullName");
  });

  it("rejects names GraphQL cannot carry", () => {
    expect(isValidName("account")).toBe(true);
    expect(isValidName("1account")).toBe(false);
    expect(isValidName("my table")).toBe(false);
    expect(isValidName("__hidden")).toBe(false);
  });
});
