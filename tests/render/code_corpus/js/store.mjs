// A tiny state store: a class with arrow-function fields and an object of actions.

import { EventEmitter } from 'node:events';

const DEFAULTS = { strict: false, maxListeners: 20 };

export class Store extends EventEmitter {
  #state;
  listeners = new Set();

  constructor(initial, options = {}) {
    super();
    this.#state = structuredClone(initial);
    this.options = { ...DEFAULTS, ...options };
  }

  get state() {
    return this.#state;
  }

  // Arrow fields keep `this` when handed to event handlers.
  dispatch = (action, payload) => {
    const handler = actions[action];
    if (!handler) throw new Error(`unknown action ${action}`);
    this.#state = handler(this.#state, payload);
    this.emit('change', this.#state);
  };

  subscribe = (fn) => {
    this.on('change', fn);
    return () => this.off('change', fn);
  };

  static from(json) {
    return new Store(JSON.parse(json));
  }
}

export const actions = {
  add(state, item) {
    return { ...state, items: [...state.items, item] };
  },

  remove: function (state, id) {
    return { ...state, items: state.items.filter((item) => item.id !== id) };
  },

  clear: (state) => ({ ...state, items: [] }),

  limits: {
    max: 100,
    check: (state) => state.items.length <= 100,
  },
};

export const selectCount = (state) => state.items.length;

export default function createStore(initial) {
  return new Store(initial);
}
