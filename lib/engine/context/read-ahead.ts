/**
 * Reads a pass starts ahead of the step that uses them (the next kind's host listing, the Pod
 * kind's host Pods and Nodes, the Events back's listings, the referenced copies), held on the pass
 * context in one place: each under its own key, taken by the step that needs it, dropped when its
 * turn has passed, and every one left settled once by the pass, so no request outlives it.
 */

/** The key of one read ahead, typed by what it holds. */
export interface ReadKey<T> {
  readonly name: string;
  /** Never set: carries `T` for the type checker. */
  readonly held?: T;
}

/** A key for reads of type `T`; one per kind of read, made once at module level. */
export function readKey<T>(name: string): ReadKey<T> {
  return { name };
}

interface Slot {
  readonly value: unknown;
  /** Ends what the value still has in flight; never rejects. */
  readonly settle: () => Promise<unknown>;
}

/** Waits for a value that is a promise (never rejecting); anything else is settled already. */
function settled(value: unknown): Promise<unknown> {
  return value instanceof Promise ? value.catch(() => undefined) : Promise.resolve();
}

/** The reads started ahead in one pass (see the module doc). */
export class ReadAhead {
  private readonly slots = new Map<string, Slot>();

  /**
   * Holds `value` under `key` unless a read is held there already (the first one stays); `settle`
   * ends what it has in flight (default: awaits it when it is a promise). A promise held here
   * never rejects unawaited: its rejection is seen where it is taken.
   */
  start<T>(key: ReadKey<T>, value: T, settle?: (value: T) => Promise<unknown>): void {
    if (this.slots.has(key.name)) return;
    if (value instanceof Promise) value.catch(() => undefined);
    this.slots.set(key.name, {
      value,
      settle: settle ? () => settle(value).catch(() => undefined) : () => settled(value),
    });
  }

  /** Whether a read is held under `key`. */
  has<T>(key: ReadKey<T>): boolean {
    return this.slots.has(key.name);
  }

  /** The read held under `key`, left held (a cache the steps share). */
  peek<T>(key: ReadKey<T>): T | undefined {
    return this.slots.get(key.name)?.value as T | undefined;
  }

  /** The read held under `key`, now the caller's (no longer held). */
  take<T>(key: ReadKey<T>): T | undefined {
    const slot = this.slots.get(key.name);
    this.slots.delete(key.name);
    return slot?.value as T | undefined;
  }

  /** Ends the read held under `key` (its turn has passed) and waits for its requests. */
  async drop<T>(key: ReadKey<T>): Promise<void> {
    const slot = this.slots.get(key.name);
    this.slots.delete(key.name);
    await slot?.settle();
  }

  /** Ends every read still held and waits for their requests: once, at the end of the pass. */
  async settle(): Promise<void> {
    const slots = [...this.slots.values()];
    this.slots.clear();
    await Promise.all(slots.map((slot) => slot.settle()));
  }
}
