package catalog

import (
	"context"
	"log/slog"
)

type loggerKey struct{}

// WithLogger returns a copy of ctx carrying l, the logger a Catalog whose
// Options.Logger is nil writes to during calls made with that context. A
// server that runs the catalog's functions (codemode.Server does) passes
// its own logger this way, so that one process logs through one handler.
func WithLogger(ctx context.Context, l *slog.Logger) context.Context {
	return context.WithValue(ctx, loggerKey{}, l)
}

// logger is Options.Logger, else the logger in ctx (WithLogger), else
// slog.Default().
func (c *Catalog) logger(ctx context.Context) *slog.Logger {
	if c.opts.Logger != nil {
		return c.opts.Logger
	}
	if l, ok := ctx.Value(loggerKey{}).(*slog.Logger); ok && l != nil {
		return l
	}
	return slog.Default()
}
