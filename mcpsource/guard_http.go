package mcpsource

// Reading a Streamable HTTP server's answers before go-sdk does, for the
// same reason as a stdio server's output (see guard.go): a tool nested
// past go-sdk's 1,000 levels would make it refuse the whole tool list.
// A JSON answer is mended whole; an event stream line by line, each
// "data:" line being one message.

import (
	"bufio"
	"bytes"
	"io"
	"mime"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mendTransport mends the answers of base.
type mendTransport struct {
	base http.RoundTripper
	u    *Upstream
}

func (t *mendTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(r)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		resp.Body = &mendJSON{body: resp.Body, u: t.u}
	case "text/event-stream":
		resp.Body = &mendEvents{mendLines: mendLines{r: bufio.NewReaderSize(resp.Body, 64<<10), u: t.u, sse: true}, body: resp.Body}
	}
	return resp, nil
}

// mendJSON reads a JSON answer whole (up to mcp.DefaultMaxLineLength;
// a longer one passes unread) and mends it before the first Read.
type mendJSON struct {
	body io.ReadCloser
	u    *Upstream
	r    io.Reader
}

func (m *mendJSON) Read(p []byte) (int, error) {
	if m.r == nil {
		b, err := io.ReadAll(io.LimitReader(m.body, mcp.DefaultMaxLineLength+1))
		if err != nil {
			return 0, err
		}
		if len(b) <= mcp.DefaultMaxLineLength && depth(b) > wireDepth {
			b = m.u.mendList(b)
		}
		m.r = io.MultiReader(bytes.NewReader(b), m.body)
	}
	return m.r.Read(p)
}

func (m *mendJSON) Close() error { return m.body.Close() }

// mendEvents is an event stream read through mendLines.
type mendEvents struct {
	mendLines
	body io.Closer
}

func (m *mendEvents) Close() error { return m.body.Close() }
