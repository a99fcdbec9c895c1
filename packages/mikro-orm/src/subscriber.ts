import { ChangeSetType, type EventSubscriber, type FlushEventArgs } from '@mikro-orm/core';
import type { HiLoRuntime } from './runtime.js';

/**
 * The flush-time fallback: gives a key to every new entity that still has none when the flush starts
 * (`new Order()` + `em.persist()` when memory was empty, or a burst that emptied the block), awaiting one
 * bulk reservation per segment, then lets MikroORM recompute those change sets.
 */
export class HiLoFlushSubscriber implements EventSubscriber {
  readonly #runtime: HiLoRuntime;

  constructor(runtime: HiLoRuntime) {
    this.#runtime = runtime;
  }

  async onFlush({ uow }: FlushEventArgs): Promise<void> {
    if (this.#runtime.entities.size === 0) return;
    const created = uow
      .getChangeSets()
      .filter((cs) => cs.type === ChangeSetType.CREATE)
      .map((cs) => cs.entity as object);
    const filled = await this.#runtime.fillMissing(created);
    if (filled.length === 0) return;
    // Children computed their foreign keys while the parent's key was missing: recompute every new
    // entity, not only the ones that got a key here.
    for (const entity of created) uow.recomputeSingleChangeSet(entity);
  }
}
