import type { Journal } from '../../src/journal/journal.js';

/**
 * The journal with some of its methods replaced (a failing disk, a lost connection, a store written
 * before a method existed, or a count of calls); every other member is the journal's own, bound to it.
 */
export function journalWith<J extends Journal>(journal: J, replaced: Partial<Journal>): J {
  return new Proxy(journal, {
    get(target, key) {
      if (Object.hasOwn(replaced, key)) return replaced[key as keyof Journal];
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
