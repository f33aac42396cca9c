'use strict';

/**
 * A small event emitter in the constructor-and-prototype style.
 */
function Emitter(options) {
  if (!(this instanceof Emitter)) return new Emitter(options);
  this._events = Object.create(null);
  this._max = (options && options.max) || 10;

  // Bound once so it can be passed around as a callback.
  this.emitError = function (err) {
    this.emit('error', err);
  }.bind(this);
}

Emitter.prototype.on = function on(name, listener) {
  (this._events[name] || (this._events[name] = [])).push(listener);
  return this;
};

Emitter.prototype.off = function off(name, listener) {
  var list = this._events[name];
  if (!list) return this;
  this._events[name] = list.filter(function (fn) { return fn !== listener; });
  return this;
};

Emitter.prototype.emit = function emit(name) {
  var args = Array.prototype.slice.call(arguments, 1);
  (this._events[name] || []).slice().forEach(function (fn) {
    fn.apply(this, args);
  }, this);
  return this;
};

Emitter.prototype.once = async function once(name) {
  var self = this;
  return new Promise(function (resolve) {
    self.on(name, function handler(value) {
      self.off(name, handler);
      resolve(value);
    });
  });
};

Emitter.listenerCount = (emitter, name) => (emitter._events[name] || []).length;

module.exports = Emitter;
module.exports.Emitter = Emitter;
module.exports.mixin = function mixin(target) {
  Object.keys(Emitter.prototype).forEach(function (key) {
    target[key] = Emitter.prototype[key];
  });
  return target;
};
