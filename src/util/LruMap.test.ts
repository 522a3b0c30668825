import { describe, expect, it } from "vitest";
import { LruMap } from "./LruMap";

describe("LruMap", () => {
  it("evicts the least recently used entry past its capacity, handing it to onEvict", () => {
    const evicted: string[] = [];
    const m = new LruMap<string, string>(2, (v) => evicted.push(v));
    m.set("a", "A");
    m.set("b", "B");
    expect(m.get("a")).toBe("A"); // a is now the most recent
    m.set("c", "C");
    expect(evicted).toEqual(["B"]);
    expect(m.get("b")).toBeUndefined();
    expect(m.size).toBe(2);
    m.clear();
    expect(evicted).toEqual(["B", "A", "C"]);
  });
});
