// Package envconfig reads a service's configuration from environment
// variables with a common prefix, applying defaults and collecting every
// problem, so that a service's config.Load reports them all at once:
//
//	func Load(getenv func(string) string) (Config, error) {
//		env := envconfig.New("MATCH_", getenv)
//		cfg := Config{
//			GRPCAddr:        env.String("GRPC_ADDR", ":8080"),
//			RedisURL:        env.URL("REDIS_URL", ""), // required: no default
//			ShutdownTimeout: env.Duration("SHUTDOWN_TIMEOUT", 10*time.Second),
//			LogLevel:        env.LogLevel("LOG_LEVEL", slog.LevelInfo),
//		}
//		return cfg, env.Err()
//	}
//
// It never reads the process environment itself: the caller passes getenv
// (os.Getenv in main, a map in tests).
package envconfig

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Env reads prefixed variables and remembers every problem.
type Env struct {
	prefix string
	getenv func(string) string
	errs   []error
}

// New returns an Env reading prefix+name through getenv.
func New(prefix string, getenv func(string) string) *Env {
	return &Env{prefix: prefix, getenv: getenv}
}

// Map returns a getenv over m, for tests.
func Map(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// Name returns the full variable name of name.
func (e *Env) Name(name string) string { return e.prefix + name }

func (e *Env) lookup(name string) string { return strings.TrimSpace(e.getenv(e.prefix + name)) }

// Errorf records a problem with the variable name (for checks that span
// several variables or ranges).
func (e *Env) Errorf(name, format string, args ...any) {
	e.errs = append(e.errs, fmt.Errorf("%s: %s", e.Name(name), fmt.Sprintf(format, args...)))
}

// Err returns every recorded problem joined (errors.Join), or nil.
func (e *Env) Err() error { return errors.Join(e.errs...) }

// String returns the variable, or def when it is unset or empty.
func (e *Env) String(name, def string) string {
	if v := e.lookup(name); v != "" {
		return v
	}
	return def
}

// Required returns the variable and records a problem when it is unset or
// empty (secrets and URLs have no defaults).
func (e *Env) Required(name string) string {
	v := e.lookup(name)
	if v == "" {
		e.Errorf(name, "required")
	}
	return v
}

// Int returns the variable as an integer, or def when unset.
func (e *Env) Int(name string, def int) int {
	v := e.lookup(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		e.Errorf(name, "%q is not an integer", v)
		return def
	}
	return n
}

// IntRange is Int, recording a problem when the value is outside [lo, hi].
func (e *Env) IntRange(name string, def, lo, hi int) int {
	n := e.Int(name, def)
	if n < lo || n > hi {
		e.Errorf(name, "%d is outside %d..%d", n, lo, hi)
	}
	return n
}

// Bool returns the variable as a boolean (strconv.ParseBool), or def.
func (e *Env) Bool(name string, def bool) bool {
	v := e.lookup(name)
	if v == "" {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		e.Errorf(name, "%q is not a boolean", v)
		return def
	}
	return b
}

// Duration returns the variable as a non-negative Go duration ("10s",
// "1m30s"), or def.
func (e *Env) Duration(name string, def time.Duration) time.Duration {
	v := e.lookup(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		e.Errorf(name, "%q is not a duration (like 10s or 1m30s)", v)
		return def
	}
	if d < 0 {
		e.Errorf(name, "%v is negative", d)
		return def
	}
	return d
}

// LogLevel returns the variable as a slog level ("debug", "info", "warn",
// "error", or an offset like "info+2"), or def.
func (e *Env) LogLevel(name string, def slog.Level) slog.Level {
	v := e.lookup(name)
	if v == "" {
		return def
	}
	var l slog.Level
	if err := l.UnmarshalText([]byte(v)); err != nil {
		e.Errorf(name, "%q is not a log level (debug, info, warn, error)", v)
		return def
	}
	return l
}

// URL returns the variable, checked to be an absolute URL with a scheme
// and host. An empty def makes it required. The value is never put in an
// error message (it may hold a password).
func (e *Env) URL(name, def string) string {
	v := e.lookup(name)
	if v == "" {
		if def == "" {
			e.Errorf(name, "required")
		}
		return def
	}
	u, err := url.Parse(v)
	if err != nil || u.Scheme == "" || (u.Host == "" && u.Opaque == "" && u.Path == "") {
		e.Errorf(name, "not an absolute URL")
	}
	return v
}

// OneOf returns the variable, or def, recording a problem when it is not
// one of allowed.
func (e *Env) OneOf(name, def string, allowed ...string) string {
	v := e.String(name, def)
	for _, a := range allowed {
		if v == a {
			return v
		}
	}
	e.Errorf(name, "%q is not one of %s", v, strings.Join(allowed, ", "))
	return v
}

// Func passes the variable to parse when it is set and records parse's
// error (without the value, which may be a secret). A required variable
// that is unset is a problem; an optional one is skipped. For example an
// auth key: env.Func("TOKEN_KEY", true, func(s string) (err error) {
// cfg.TokenKey, err = auth.ParseKey(s); return err }).
func (e *Env) Func(name string, required bool, parse func(string) error) {
	v := e.lookup(name)
	if v == "" {
		if required {
			e.Errorf(name, "required")
		}
		return
	}
	if err := parse(v); err != nil {
		e.Errorf(name, "%v", err)
	}
}
