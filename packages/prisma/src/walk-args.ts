import type { ResolvedModel } from './metadata.js';

/** One place in a copied `args` object where a key is missing. */
export interface KeySlot {
  readonly model: ResolvedModel;
  readonly target: Record<string, unknown>;
}

type Models = ReadonlyMap<string, ResolvedModel>;
type Plain = Record<string, unknown>;

function isPlainObject(value: unknown): value is Plain {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Prepares the arguments of a top-level operation: returns a copy whose create inputs (at any depth) are
 * fresh objects, and the places in that copy where a key is missing. The caller's objects are never
 * changed, so retrying with the same object draws new keys instead of reusing burnt ones.
 * Operations other than create/createMany/createManyAndReturn/upsert/update come back untouched.
 */
export function collectKeySlots(
  models: Models,
  modelName: string,
  operation: string,
  args: unknown,
): { args: unknown; slots: KeySlot[] } {
  const model = models.get(modelName);
  const slots: KeySlot[] = [];
  if (model === undefined || !isPlainObject(args)) return { args, slots };
  const walker = new Walker(models, slots);
  switch (operation) {
    case 'create':
      return { args: { ...args, data: walker.create(model, args.data) }, slots };
    case 'createMany':
    case 'createManyAndReturn':
      return { args: { ...args, data: walker.createList(model, args.data) }, slots };
    case 'upsert':
      return {
        args: { ...args, create: walker.create(model, args.create), update: walker.update(model, args.update) },
        slots,
      };
    case 'update':
      return { args: { ...args, data: walker.update(model, args.data) }, slots };
    default:
      return { args, slots };
  }
}

class Walker {
  constructor(
    private readonly models: Models,
    private readonly slots: KeySlot[],
  ) {}

  createList(model: ResolvedModel, data: unknown): unknown {
    if (Array.isArray(data)) return data.map((d) => this.create(model, d));
    return this.create(model, data);
  }

  /** A create input: the key when missing, then nested writes in its relation fields. */
  create(model: ResolvedModel, data: unknown): unknown {
    if (!isPlainObject(data)) return data;
    const copy: Plain = { ...data };
    if (model.key !== undefined && (copy[model.key.field] === undefined || copy[model.key.field] === null)) {
      this.slots.push({ model, target: copy });
    }
    this.relations(model, copy);
    return copy;
  }

  /** An update input: no key of its own, but nested creates in its relation fields. */
  update(model: ResolvedModel, data: unknown): unknown {
    if (!isPlainObject(data)) return data;
    const copy: Plain = { ...data };
    this.relations(model, copy);
    return copy;
  }

  private relations(model: ResolvedModel, copy: Plain): void {
    for (const [field, targetName] of model.relations) {
      const write = copy[field];
      if (!isPlainObject(write)) continue;
      const target = this.models.get(targetName);
      if (target === undefined) continue;
      copy[field] = this.nestedWrite(target, write);
    }
  }

  /** `{ create, createMany, connectOrCreate, upsert, update, … }` on a relation field. */
  private nestedWrite(target: ResolvedModel, write: Plain): Plain {
    const out: Plain = { ...write };
    if (out.create !== undefined) out.create = this.createList(target, out.create);
    if (isPlainObject(out.createMany)) {
      out.createMany = { ...out.createMany, data: this.createList(target, out.createMany.data) };
    }
    if (out.connectOrCreate !== undefined) {
      out.connectOrCreate = mapMany(out.connectOrCreate, (item) => ({
        ...item,
        create: this.create(target, item.create),
      }));
    }
    if (out.upsert !== undefined) {
      out.upsert = mapMany(out.upsert, (item) => ({
        ...item,
        create: this.create(target, item.create),
        update: this.updateMaybeWrapped(target, item.update),
      }));
    }
    if (out.update !== undefined) {
      out.update = mapMany(out.update, (item) => this.updateMaybeWrapped(target, item) as Plain);
    }
    return out;
  }

  /**
   * Nested updates come as `{ where, data }` (to-many, and to-one with a filter) or as the update input
   * itself (to-one); a model with its own `data` field is told apart by requiring `where` too.
   */
  private updateMaybeWrapped(target: ResolvedModel, item: unknown): unknown {
    if (!isPlainObject(item)) return item;
    const keys = Object.keys(item);
    const wrapped =
      'data' in item && keys.every((k) => k === 'data' || k === 'where') && (!target.hasDataField || 'where' in item);
    if (wrapped) return { ...item, data: this.update(target, item.data) };
    return this.update(target, item);
  }
}

function mapMany(value: unknown, fn: (item: Plain) => Plain): unknown {
  if (Array.isArray(value)) return value.map((v: unknown) => (isPlainObject(v) ? fn(v) : v));
  return isPlainObject(value) ? fn(value) : value;
}
