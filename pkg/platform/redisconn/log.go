package redisconn

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/redis/go-redis/v9"
)

// LogTo routes go-redis's own log lines (pool and Sentinel events:
// "sentinel: new master=...", "connection pool: ...") to logger at WARN,
// one JSON object each like every other line of a service, instead of
// go-redis's default plain-text logger on stderr. It also makes logger
// the process's default slog logger, so that nothing logs plain text.
// go-redis has one logger per process: call it once, at start.
func LogTo(logger *slog.Logger) {
	redis.SetLogger(slogPrinter{logger})
	slog.SetDefault(logger)
}

type slogPrinter struct{ l *slog.Logger }

func (p slogPrinter) Printf(ctx context.Context, format string, v ...any) {
	p.l.WarnContext(ctx, fmt.Sprintf(format, v...), "component", "go-redis")
}
