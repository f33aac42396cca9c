# frozen_string_literal: true

require 'rack'

module Tiny
  # The routing DSL and request handling of a small web framework, in the style of Sinatra.
  class Base
    attr_accessor :env, :request, :response
    attr_reader :params

    # Raised to stop handling a request right away.
    class Halt < StandardError; end

    def initialize(app = nil)
      @app = app
      @params = {}
      yield self if block_given?
    end

    def call(env)
      dup.call!(env)
    end

    def call!(env)
      @env = env
      @request = Rack::Request.new(env)
      @response = Rack::Response.new
      invoke { dispatch! }
      @response.finish
    end

    def halt(*response)
      throw :halt, response
    end

    def ==(other)
      other.is_a?(Base) && other.env == env
    end

    def [](key)
      params[key.to_s]
    end

    def help_text
      <<~TEXT
        Routes:
        #{self.class.routes.keys.join("\n")}
      TEXT
    end

    private

    def invoke
      res = catch(:halt) { yield }
      @response.body = Array(res) if res
    end

    def dispatch!
      route = self.class.routes.dig(@request.request_method, @request.path_info)
      halt 404 unless route
      instance_eval(&route)
    end

    class << self
      attr_reader :routes

      def get(path, &block)
        route('GET', path, &block)
      end

      def post(path, &block) = route('POST', path, &block)

      private

      def route(verb, path, &block)
        (@routes ||= Hash.new { |h, k| h[k] = {} })[verb][path] = block
      end
    end

    def self.run!(port: 4567)
      Rack::Handler.default.run(new, Port: port)
    end

    %w[put patch delete].each do |verb|
      define_method(verb) { |path, &block| self.class.send(:route, verb.upcase, path, &block) }
    end
  end

  # Helpers mixed into every request.
  module Helpers
    module_function

    def status(value = nil)
      value ? response.status = value : response.status
    end

    def redirect?(code) = (300..399).cover?(code)
  end
end
