package httpmw

import (
	"context"
	"log/slog"
	"net/http"
)

// FailureLimit wraps guard, a middleware that either passes a request on
// or answers it itself (such as bearer authentication), so that requests
// guard refuses are counted per client address in l. Once an address has
// used up its bucket, its further requests get 429 Too Many Requests with
// Retry-After before guard sees them. Requests guard passes on cost
// nothing. addr names a request's client; nil means the peer address
// (RemoteIP), since forwarding headers are set by the client. When l
// fails, the request is refused with 503 and the error logged. A nil l
// returns guard unchanged.
func FailureLimit(l FailureCounter, guard func(http.Handler) http.Handler, addr func(*http.Request) string, logger *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		if l == nil {
			return guard(next)
		}
		if logger == nil {
			logger = slog.Default()
		}
		if addr == nil {
			addr = RemoteIP
		}
		// Reaching next is how a request proves guard let it through;
		// sniffing the status would misread a 401 the endpoint writes.
		inner := guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if p, ok := r.Context().Value(passedKey{}).(*bool); ok {
				*p = true
			}
			next.ServeHTTP(w, r)
		}))
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			k := "ip:" + addr(r)
			d, err := l.Blocked(r.Context(), k)
			if refused(w, logger, "failed-authentication", d, err, "too many failed authentication attempts") {
				return
			}
			passed := false
			inner.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), passedKey{}, &passed)))
			if !passed {
				if err := l.Failed(context.WithoutCancel(r.Context()), k); err != nil {
					logger.Error("codemode: cannot record a failed authentication", "err", err)
				}
			}
		})
	}
}

type passedKey struct{}
