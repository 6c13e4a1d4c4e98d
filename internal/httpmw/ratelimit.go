package httpmw

import (
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

// RateLimit answers 429 Too Many Requests with a Retry-After header (whole
// seconds, rounded up) once key(r) has used up its bucket. An empty key
// falls back to the client address. Each request costs one token.
func RateLimit(l *RateLimiter, key func(*http.Request) string) func(http.Handler) http.Handler {
	return RateLimitCost(l, key, nil)
}

// RateLimitCost is RateLimit where a request costs cost(r) tokens (nil:
// one), such as [JSONRPCCost] for an endpoint that accepts JSON-RPC batches.
func RateLimitCost(l *RateLimiter, key func(*http.Request) string, cost func(*http.Request) int) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		if l == nil {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			k := ""
			if key != nil {
				k = key(r)
			}
			if k == "" {
				k = "ip:" + RemoteIP(r)
			}
			n := 1
			if cost != nil {
				n = cost(r)
			}
			if d := l.ReserveN(k, n); d > 0 {
				tooMany(w, "rate limit exceeded", d)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
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
