/**
 * Idempotency on redelivery: GitHub redelivers a webhook (same `X-GitHub-Delivery` id, Probot's
 * `context.id`) when a delivery timed out or someone pressed "Redeliver"; the same id must act once.
 *
 * This is a bounded in-memory LRU: enough for one server process (and for the Action adapter, where each
 * run sees one delivery). A deployment with several instances behind a load balancer needs the claim to be
 * shared and atomic instead — e.g. Redis `SET buildbench:delivery:<id> 1 NX EX 86400` (or a unique-key
 * insert in a database) — since a redelivery may reach another instance. The `DeliveryLog` interface is
 * what such a store would implement.
 */
export interface DeliveryLog {
  /** True the first time an id is claimed, false for every later claim of the same id. */
  claim(id: string): boolean;
  /**
   * Gives a claim back after the handler failed, so GitHub's redelivery can try again. Safe because each
   * write before the dispatch is idempotent (a reaction, the sticky comment's upsert) and the dispatch is last.
   */
  forget(id: string): void;
}

export class MemoryDeliveryLog implements DeliveryLog {
  private readonly ids = new Map<string, true>();

  constructor(private readonly capacity = 5000) {}

  claim(id: string): boolean {
    if (this.ids.has(id)) {
      // Refresh its place, so an id redelivered again and again stays remembered.
      this.ids.delete(id);
      this.ids.set(id, true);
      return false;
    }
    this.ids.set(id, true);
    while (this.ids.size > this.capacity) {
      const oldest = this.ids.keys().next().value;
      if (oldest === undefined) break;
      this.ids.delete(oldest);
    }
    return true;
  }

  forget(id: string): void {
    this.ids.delete(id);
  }

  get size(): number {
    return this.ids.size;
  }
}
