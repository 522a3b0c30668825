// Util: a small bounded map (least recently used entry evicted first) for the caches.

const NONE: unique symbol = Symbol("no entry");

export class LruMap<K, V> {
  private readonly map = new Map<K, V>();
  /** The most recently used key: asked again (a backend repeating one request), it is already
   * at that end, and a delete and re-insert would only leave garbage in the map's table. */
  private newest: K | typeof NONE = NONE;

  constructor(
    private readonly capacity: number,
    private readonly onEvict: (value: V) => void = () => {},
  ) {}

  get size(): number {
    return this.map.size;
  }

  /** Whether the key has an entry; its place in the order is left as it is. */
  has(key: K): boolean {
    return this.map.has(key);
  }

  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value === undefined) return undefined;
    if (this.newest === key) return value;
    // Re-inserting moves the entry to the most recently used end.
    this.map.delete(key);
    this.map.set(key, value);
    this.newest = key;
    return value;
  }

  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    this.newest = key;
    while (this.map.size > this.capacity) {
      const oldest = this.map.keys().next();
      if (oldest.done) break;
      const evicted = this.map.get(oldest.value)!;
      this.map.delete(oldest.value);
      // A capacity of 0 evicts the entry just set.
      if (this.newest === oldest.value) this.newest = NONE;
      this.onEvict(evicted);
    }
  }

  clear(): void {
    for (const v of this.map.values()) this.onEvict(v);
    this.map.clear();
    this.newest = NONE;
  }
}
