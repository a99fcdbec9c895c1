// A mark kept on an ORM's entities that nothing else sees (a private field stamped onto the object).

/**
 * A mark an adapter keeps on objects it does not own (an ORM's entities), made by {@link objectMark}.
 */
export interface ObjectMark<T> {
  /**
   * Marks `object` with `value`; `undefined` clears the mark. Returns `false` when the object refuses a new
   * field (engines may refuse non-extensible objects): it then stays unmarked, and the adapter must treat
   * an unmarked object the safe way.
   */
  set(object: object, value: T | undefined): boolean;
  /** The value `object` is marked with, or `undefined`. */
  get(object: object): T | undefined;
}

/**
 * A new, independent mark for objects. It is a private field stamped onto the object (a base constructor
 * that returns its argument lets a subclass add its private fields to any object), so nothing else sees it:
 * not `Object.keys`, symbols, spread, `JSON.stringify`, `structuredClone` or test matchers, and a copy of
 * the object is never marked. Setting it costs about a tenth of a `WeakMap` entry (whose ephemeron table
 * also weighs on every garbage collection), and the mark goes away with the object.
 * @example
 * ```ts
 * const fresh = objectMark<bigint>();
 * fresh.set(entity, key);
 * if (fresh.get(entity) === key) { … }
 * ```
 */
export function objectMark<T>(): ObjectMark<T> {
  class Stamp {
    constructor(target: object) {
      return target;
    }
  }
  class Marked extends Stamp {
    #value: T | undefined;
    constructor(target: object, value: T) {
      super(target);
      this.#value = value;
    }
    static set(object: object, value: T | undefined): boolean {
      if (#value in object) object.#value = value;
      else if (value !== undefined) {
        try {
          new Marked(object, value);
        } catch {
          return false;
        }
      }
      return true;
    }
    static get(object: object): T | undefined {
      return #value in object ? object.#value : undefined;
    }
  }
  return { set: Marked.set, get: Marked.get };
}
