/*!
 * tinyweb
 * An application object in the style of express: methods assigned to a shared object.
 */

'use strict';

/**
 * Module dependencies.
 * @private
 */

var finalhandler = require('finalhandler');
var Router = require('./router');
var methods = require('methods');
var debug = require('debug')('tinyweb:application');
var http = require('http');
var slice = Array.prototype.slice;

/**
 * Application prototype.
 */

var app = exports = module.exports = {};

/**
 * Initialize the server.
 *
 * @private
 */

app.init = function init() {
  this.cache = {};
  this.engines = {};
  this.settings = {};

  this.defaultConfiguration();
};

/**
 * Initialize application configuration.
 * @private
 */

app.defaultConfiguration = function defaultConfiguration() {
  var env = process.env.NODE_ENV || 'development';

  this.enable('x-powered-by');
  this.set('env', env);
  debug('booting in %s mode', env);

  this.locals = Object.create(null);
  this.mountpath = '/';
};

/**
 * Lazily adds the base router if it has not yet been added.
 * @private
 */

app.lazyrouter = function lazyrouter() {
  if (!this._router) {
    this._router = new Router({ caseSensitive: this.enabled('case sensitive routing') });
  }
};

/**
 * Dispatch a req, res pair into the application.
 * @private
 */

app.handle = function handle(req, res, callback) {
  var router = this._router;

  var done = callback || finalhandler(req, res, {
    env: this.get('env'),
    onerror: logerror.bind(this)
  });

  if (!router) {
    debug('no routes defined on app');
    done();
    return;
  }

  router.handle(req, res, done);
};

/**
 * Proxy `Router#use()` to add middleware to the app router.
 * @public
 */

app.use = function use(fn) {
  var offset = 0;
  var path = '/';

  if (typeof fn !== 'function') {
    path = fn;
    offset = 1;
  }

  var fns = slice.call(arguments, offset);
  this.lazyrouter();
  fns.forEach(function (fn) {
    this._router.use(path, fn);
  }, this);

  return this;
};

app.route = function route(path) {
  this.lazyrouter();
  return this._router.route(path);
};

app.set = function set(setting, val) {
  if (arguments.length === 1) {
    return this.settings[setting];
  }
  this.settings[setting] = val;
  return this;
};

app.enabled = function enabled(setting) {
  return Boolean(this.set(setting));
};

app.enable = function enable(setting) {
  return this.set(setting, true);
};

/**
 * Delegate `.VERB(...)` calls to `router.VERB(...)`.
 */

methods.forEach(function (method) {
  app[method] = function (path) {
    if (method === 'get' && arguments.length === 1) {
      return this.set(path);
    }
    this.lazyrouter();
    var route = this._router.route(path);
    route[method].apply(route, slice.call(arguments, 1));
    return this;
  };
});

app.listen = function listen() {
  var server = http.createServer(this);
  return server.listen.apply(server, arguments);
};

/**
 * Log error using console.error.
 * @private
 */

function logerror(err) {
  if (this.get('env') !== 'test') console.error(err.stack || err.toString());
}
