// Platform: a pass run every so often in the background → the function that stops it. A pass
// still running when the next is due is not started again beside it.
export function runEvery(everyMs: number, pass: () => Promise<void>): () => void {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    running ??= pass().finally(() => (running = undefined));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
