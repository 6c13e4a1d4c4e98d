package httpmw

import (
	"context"
	"log/slog"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// idleAfter is how long a key's limiter is kept without requests; after
// that its bucket is full again anyway, so forgetting it changes nothing.
const idleAfter = 10 * time.Minute

// Limiter is a per-key rate limit: [RateLimiter] in one process, or one
// shared by replicas.
type Limiter interface {
	// Take takes n tokens from key's bucket, or none: it returns 0 when the
	// request may proceed, or how long the caller should wait.
	Take(ctx context.Context, key string, n int) (time.Duration, error)
}

// FailureCounter limits failures per key: [RateLimiter] in one process,
// or one shared by replicas.
type FailureCounter interface {
	// Blocked returns 0 when key may try again, or how long it must wait.
	Blocked(ctx context.Context, key string) (time.Duration, error)
	// Failed records one failure of key, even past the limit.
	Failed(ctx context.Context, key string) error
}

// RateLimiter keeps one token bucket per key (a principal or an address).
// It is safe for concurrent use and needs no goroutine: idle buckets are
// swept while handling requests.
type RateLimiter struct {
	limit rate.Limit
	burst int
	now   func() time.Time

	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

// NewRateLimiter returns a limiter allowing each key perSecond requests per
// second on average with bursts of up to burst requests.
func NewRateLimiter(perSecond float64, burst int) *RateLimiter {
	if burst < 1 {
		burst = 1
	}
	return &RateLimiter{limit: rate.Limit(perSecond), burst: burst, now: time.Now, buckets: map[string]*bucket{}}
}

// Reserve takes one token for key. It returns 0 when the request may
// proceed, or how long the caller should wait before retrying.
func (l *RateLimiter) Reserve(key string) time.Duration { return l.ReserveN(key, 1) }

// ReserveN takes n tokens for key at once (n < 1 counts as 1), or none:
// it returns 0 when the request may proceed, or how long to wait. More
// than the burst can never proceed.
func (l *RateLimiter) ReserveN(key string, n int) time.Duration {
	n = max(n, 1)
	now := l.now()
	b := l.bucket(key, now)
	r := b.lim.ReserveN(now, n)
	if !r.OK() {
		return idleAfter
	}
	d := r.DelayFrom(now)
	if d > 0 {
		// Refused requests must not consume future tokens.
		r.CancelAt(now)
	}
	return d
}

// bucket returns key's bucket, creating it, and forgets idle ones.
func (l *RateLimiter) bucket(key string, now time.Time) *bucket {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[key]
	if !ok {
		b = &bucket{lim: rate.NewLimiter(l.limit, l.burst)}
		l.buckets[key] = b
	}
	b.seen = now
	if now.Sub(l.lastSweep) > idleAfter {
		l.lastSweep = now
		for k, v := range l.buckets {
			if now.Sub(v.seen) > idleAfter {
				delete(l.buckets, k)
			}
		}
	}
	return b
}

// Peek reports whether key has a token left without taking it: 0 when it
// has, or how long until it has one again. It creates no bucket, so keys
// that are only peeked at (clients that never fail) cost no memory.
func (l *RateLimiter) Peek(key string) time.Duration {
	now := l.now()
	l.mu.Lock()
	b, ok := l.buckets[key]
	l.mu.Unlock()
	if !ok {
		return 0
	}
	tokens := b.lim.TokensAt(now)
	if tokens >= 1 {
		return 0
	}
	if l.limit <= 0 {
		return idleAfter
	}
	return time.Duration((1 - tokens) / float64(l.limit) * float64(time.Second))
}

// Charge takes one token from key even when none is left, so that
// failures which happened at once all count.
func (l *RateLimiter) Charge(key string) {
	now := l.now()
	l.bucket(key, now).lim.ReserveN(now, 1)
}

// Forget drops key's bucket: its next request finds it full, as after a
// success that clears a count of failures.
func (l *RateLimiter) Forget(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.buckets, key)
}

// Take implements [Limiter] with [RateLimiter.ReserveN]; it never fails.
func (l *RateLimiter) Take(_ context.Context, key string, n int) (time.Duration, error) {
	return l.ReserveN(key, n), nil
}

// Blocked implements [FailureCounter] with [RateLimiter.Peek]; it never fails.
func (l *RateLimiter) Blocked(_ context.Context, key string) (time.Duration, error) {
	return l.Peek(key), nil
}

// Failed implements [FailureCounter] with [RateLimiter.Charge]; it never fails.
func (l *RateLimiter) Failed(_ context.Context, key string) error {
	l.Charge(key)
	return nil
}

// RateLimit answers 429 Too Many Requests with a Retry-After header (whole
// seconds, rounded up) once key(r) has used up its bucket. An empty key
// falls back to the client address. Each request costs one token.
func RateLimit(l Limiter, key func(*http.Request) string) func(http.Handler) http.Handler {
	return RateLimitCost(l, key, nil, nil)
}

// RateLimitCost is RateLimit where a request costs cost(r) tokens (nil:
// one), such as [ExecutionCost]. A request that costs nothing is passed on
// without asking l. When l fails, the request is refused with 503 Service
// Unavailable and the error logged: a limiter that prefers to let requests
// through when its store is down says so by returning no error.
func RateLimitCost(l Limiter, key func(*http.Request) string, cost func(*http.Request) int, logger *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		if l == nil {
			return next
		}
		if logger == nil {
			logger = slog.Default()
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n := 1
			if cost != nil {
				n = cost(r)
			}
			if n <= 0 {
				next.ServeHTTP(w, r)
				return
			}
			k := ""
			if key != nil {
				k = key(r)
			}
			if k == "" {
				k = "ip:" + RemoteIP(r)
			}
			d, err := l.Take(r.Context(), k, n)
			if refused(w, logger, "rate", d, err, "rate limit exceeded") {
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// refused answers a request the limiter named what refused (wait d > 0:
// 429 with msg) or could not judge (err: logged, 503); it reports whether
// it answered.
func refused(w http.ResponseWriter, logger *slog.Logger, what string, d time.Duration, err error, msg string) bool {
	switch {
	case err != nil:
		logger.Error("codemode: "+what+" limiter failed; request refused", "err", err)
		unavailable(w, what+" limit unavailable")
		return true
	case d > 0:
		tooMany(w, msg, d)
		return true
	}
	return false
}

// unavailable answers 503 with a short Retry-After.
func unavailable(w http.ResponseWriter, msg string) {
	w.Header().Set("Retry-After", "1")
	http.Error(w, msg+": retry shortly", http.StatusServiceUnavailable)
}

// tooMany answers 429 with Retry-After in whole seconds, rounded up.
func tooMany(w http.ResponseWriter, msg string, d time.Duration) {
	secs := strconv.Itoa(max(int(math.Ceil(d.Seconds())), 1))
	w.Header().Set("Retry-After", secs)
	http.Error(w, msg+": retry after "+secs+"s", http.StatusTooManyRequests)
}

// RemoteIP returns the IP of the peer that sent r, without the port.
// Forwarding headers are ignored: they are set by the client unless a
// trusted proxy rewrites them, and a limiter keyed on them is easy to dodge.
func RemoteIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// LimiterOr returns shared when it is not nil, else an in-process
// RateLimiter of perSecond and burst, or nil (no limit) when perSecond is
// not positive.
func LimiterOr(shared Limiter, perSecond float64, burst int) Limiter {
	switch {
	case shared != nil:
		return shared
	case perSecond > 0:
		return NewRateLimiter(perSecond, burst)
	}
	return nil
}

// FailureCounterOr is LimiterOr for a limit on failed authentication.
func FailureCounterOr(shared FailureCounter, perSecond float64, burst int) FailureCounter {
	switch {
	case shared != nil:
		return shared
	case perSecond > 0:
		return NewRateLimiter(perSecond, burst)
	}
	return nil
}

// Counting returns l, calling refused with the request's context for each
// request l makes wait (nil for a nil l): how a server counts the
// requests its rate limits refuse.
func Counting(l Limiter, refused func(ctx context.Context)) Limiter {
	if l == nil {
		return nil
	}
	return countingLimiter{l, refused}
}

type countingLimiter struct {
	Limiter
	refused func(ctx context.Context)
}

func (c countingLimiter) Take(ctx context.Context, key string, n int) (time.Duration, error) {
	wait, err := c.Limiter.Take(ctx, key, n)
	if err == nil && wait > 0 {
		c.refused(ctx)
	}
	return wait, err
}
