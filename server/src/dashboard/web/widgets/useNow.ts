// Widget support: the time now, re-read every `everyMs` while `active` (countdowns, elapsed times).
import { useEffect, useState } from "react";

export function useNow(active: boolean, everyMs = 1_000): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    if (!active) return undefined;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [active, everyMs]);
  return now;
}
