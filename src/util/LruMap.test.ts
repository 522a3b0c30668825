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

  it("keeps the order when the most recent entry is asked again, and forgets it once evicted", () => {
    const evicted: string[] = [];
    const m = new LruMap<string, string>(2, (v) => evicted.push(v));
    m.set("a", "A");
    m.set("b", "B");
    expect(m.get("b")).toBe("B");
    expect(m.get("b")).toBe("B");
    m.set("c", "C");
    expect(evicted).toEqual(["A"]);
    expect(m.get("b")).toBe("B"); // b is the most recent again
    m.set("d", "D");
    expect(evicted).toEqual(["A", "C"]);
    const none = new LruMap<string, string>(0, (v) => evicted.push(v));
    none.set("x", "X");
    expect(none.get("x")).toBeUndefined();
    expect(none.size).toBe(0);
  });

  it("answers has() without making the entry the most recent", () => {
    const evicted: string[] = [];
    const m = new LruMap<string, string>(2, (v) => evicted.push(v));
    m.set("a", "A");
    m.set("b", "B");
    expect(m.has("a")).toBe(true);
    expect(m.has("z")).toBe(false);
    m.set("c", "C");
    expect(evicted).toEqual(["A"]);
    expect(m.has("a")).toBe(false);
  });
});
