package httpmw

import (
	"fmt"
	"net/http"
)

// BodyLimit rejects requests whose body is larger than max bytes with 413.
// A declared Content-Length over the limit is refused before anything is
// read; a chunked body is cut off by http.MaxBytesReader, whose error the
// MCP handler turns into 413 as well. max <= 0 disables the limit.
func BodyLimit(max int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		if max <= 0 {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.ContentLength > max {
				http.Error(w, fmt.Sprintf("request body exceeds %d bytes", max), http.StatusRequestEntityTooLarge)
				return
			}
			if r.Body != nil {
				r.Body = http.MaxBytesReader(w, r.Body, max)
			}
			next.ServeHTTP(w, r)
		})
	}
}
