/**
 * Runs `worker` over `items` with at most `concurrency` in flight. No new item starts once
 * `stopped()` returns true (a bound was hit); items in flight finish.
 */
export async function runPool<T>(
  items: readonly T[],
  concurrency: number,
  worker: (item: T) => Promise<void>,
  stopped: () => boolean = () => false,
): Promise<void> {
  let next = 0;
  const lanes = Array.from(
    { length: Math.max(1, Math.min(concurrency, items.length)) },
    async () => {
      while (next < items.length && !stopped()) {
        const item = items[next++] as T;
        await worker(item);
      }
    },
  );
  await Promise.all(lanes);
}
