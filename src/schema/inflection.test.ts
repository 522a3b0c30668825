// Pure tests of the schema stage's naming: database names → GraphQL names.
import { describe, expect, it } from "vitest";
import { camelCase, Inflector, isValidName, pascalCase } from "./inflection";

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

  describe("to-one relationship names from one key column", () => {
    const account = { name: "account", directives: {} };
    const key = (...localColumns: string[]) => ({ localColumns, foreignName: undefined });
    it("strip a trailing Id without inflection, else name the referenced type", () => {
      const plain = new Inflector(false);
      expect(plain.toOneLocal(key("authorId"), account)).toBe("author");
      expect(plain.toOneLocal(key("main_authorId"), account)).toBe("main_author");
      expect(plain.toOneLocal(key("parent_id"), account)).toBe("account");
      expect(plain.toOneLocal(key("owner"), account)).toBe("account");
      expect(plain.toOneLocal(key("Id"), account)).toBe("account");
      expect(plain.toOneLocal(key("aId", "bId"), account)).toBe("account");
      expect(plain.toOneLocal(key("authorId"), { name: "Account", directives: { name: "Holder" } })).toBe("author");
      expect(plain.toOneLocal(key("owner"), { name: "Account", directives: {} })).toBe("account");
    });

    it("strip a trailing _id and inflect the rest with inflection", () => {
      const inflected = new Inflector(true);
      expect(inflected.toOneLocal(key("author_id"), account)).toBe("author");
      expect(inflected.toOneLocal(key("main_author_id"), account)).toBe("mainAuthor");
      expect(inflected.toOneLocal(key("authorId"), { name: "blog_account", directives: {} })).toBe("blogAccount");
      expect(inflected.toOneLocal(key("_id"), account)).toBe("account");
    });

    it("take a foreign_name directive as it is", () => {
      expect(new Inflector(true).toOneLocal({ localColumns: ["author_id"], foreignName: "writer" }, account)).toBe("writer");
    });
  });
});
