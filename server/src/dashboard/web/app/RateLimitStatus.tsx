// App stage: the calls the API still accepts this minute (from its rate-limit headers), and after
// a 429 how long until it accepts them again.
import { useSyncExternalStore } from "react";
import { api } from "../api/apiClient";
import { useNow } from "../widgets/useNow";

const subscribe = (listener: () => void) => api.rate.subscribe(listener);
const snapshot = () => api.rate.current();

export function RateLimitStatus() {
  const rate = useSyncExternalStore(subscribe, snapshot);
  const now = useNow(rate.blockedUntil !== undefined);
  const blocked = rate.blockedUntil !== undefined && rate.blockedUntil > now;
  if (blocked) {
    return (
      <div role="alert" className="ratelimit ratelimit-blocked">
        Rate limit reached: calls resume in {Math.ceil((rate.blockedUntil! - now) / 1000)} s
      </div>
    );
  }
  if (rate.remaining === undefined) return null;
  return (
    <span className="ratelimit" title="Calls to the Management API left in this minute (X-RateLimit-Remaining)">
      API calls left this minute: {rate.remaining}
      {rate.limit !== undefined ? ` of ${rate.limit}` : ""}
    </span>
  );
}
