package openapisource

// A call: the request sent once, the answer read within bounds, and every
// failure worded for the model in the catalogue's error vocabulary.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/brakinglab/codemode-go/catalog"
)

// caller calls one operation.
type caller struct {
	s     *settings
	r     *request
	name  string
	write bool // not READ-ONLY: never told to retry once sent
}

func (c *caller) call(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
	req, err := c.r.build(c.s.base, args)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, c.s.Timeout)
	defer cancel()
	req = req.WithContext(cctx)
	if c.s.Authorize != nil {
		var pp *catalog.Principal
		if p, ok := catalog.PrincipalFrom(ctx); ok {
			pp = &p
		}
		if err := c.s.Authorize(req, pp); err != nil {
			return nil, err
		}
	}
	resp, err := c.s.HTTPClient.Do(req)
	if err != nil {
		return nil, c.sendError(ctx, cctx, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.s.MaxResponseBytes+1))
	if err != nil {
		return nil, c.lost(ctx, cctx, resp.StatusCode, "the answer was cut off", err)
	}
	if int64(len(body)) > c.s.MaxResponseBytes {
		if resp.StatusCode < 400 {
			return nil, c.lost(ctx, cctx, resp.StatusCode, fmt.Sprintf("the answer is larger than %d bytes (Options.MaxResponseBytes)", c.s.MaxResponseBytes), nil)
		}
		// An error's message: its beginning is enough.
		body = body[:c.s.MaxResponseBytes]
	}
	switch code := resp.StatusCode; {
	case code >= 200 && code < 300:
		v, err := result(resp, body)
		if err != nil {
			return nil, c.lost(ctx, cctx, code, "the answer is not the JSON it says it is", err)
		}
		return v, nil
	case code >= 300 && code < 400:
		msg := fmt.Sprintf("%s: the API answered HTTP %d, a redirect to %s, which is outside the API's base URL or past 5 redirects, so it was not followed", c.name, code, cut(resp.Header.Get("Location"), 200))
		if c.write {
			return nil, outcomeUnknown(c.name, msg)
		}
		return nil, &catalog.Error{Code: catalog.CodeUpstream, Message: msg}
	case code >= 400 && code < 500:
		msg := fmt.Sprintf("%s: HTTP %d: %s", c.name, code, c.apiMessage(body))
		if code == http.StatusTooManyRequests {
			msg += "; rate limited: " + retryAfter(resp)
		}
		return nil, &catalog.Error{Code: clientCode(code), Message: msg}
	default:
		msg := fmt.Sprintf("%s: the API failed with HTTP %d: %s", c.name, code, c.apiMessage(body))
		if c.write {
			return nil, outcomeUnknown(c.name, msg)
		}
		if code == http.StatusNotImplemented || code == http.StatusHTTPVersionNotSupported {
			return nil, &catalog.Error{Code: catalog.CodeUpstream, Message: msg + "; retrying will not help"}
		}
		return nil, &catalog.Error{Code: catalog.CodeUpstream, Message: msg + "; " + retryAfter(resp)}
	}
}

// clientCode maps a 4xx status to the catalogue's vocabulary.
func clientCode(status int) string {
	switch status {
	case http.StatusNotFound, http.StatusGone:
		return catalog.CodeNotFound
	case http.StatusConflict, http.StatusPreconditionFailed:
		return catalog.CodeConflict
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return catalog.CodeInvalid
	}
	return catalog.CodeToolError
}

// sendError words a request that got no answer. A read says whether to
// retry; a write that may have been sent is an unknown outcome.
func (c *caller) sendError(ctx, cctx context.Context, err error) error {
	if notSent(err) {
		c.s.Logger.Warn("openapisource: could not reach the API", "function", c.name, "error", err)
		return &catalog.Error{Code: catalog.CodeUpstream, Message: fmt.Sprintf("%s: could not reach the API (nothing was sent); retry later", c.name)}
	}
	return c.lost(ctx, cctx, 0, "", err)
}

// lost words a call whose answer was lost or unusable. status is the
// answer's status when one came.
func (c *caller) lost(ctx, cctx context.Context, status int, what string, err error) error {
	if err != nil {
		c.s.Logger.Warn("openapisource: call failed", "function", c.name, "status", status, "error", err)
	}
	var why, retry string
	switch {
	case ctx.Err() != nil:
		if !c.write {
			return ctx.Err()
		}
		why = "the execution ended while the call was in flight"
	case cctx.Err() != nil:
		why = fmt.Sprintf("the API did not answer within %s", c.s.Timeout)
		retry = "; retry later, or ask for less"
	case what != "":
		why = what
		retry = "; ask for less, or retry later"
	default:
		why = "the connection failed during the call"
		retry = "; retry in a few seconds"
	}
	if c.write {
		if status >= 200 && status < 300 {
			why = fmt.Sprintf("%s: the API accepted the call (HTTP %d) but %s", c.name, status, why)
		} else {
			why = c.name + ": " + why
		}
		return outcomeUnknown(c.name, why)
	}
	return &catalog.Error{Code: catalog.CodeUpstream, Message: c.name + ": " + why + retry}
}

// outcomeUnknown is the error of a write that was sent and whose answer
// was lost or unusable, worded as mcpsource words it.
func outcomeUnknown(name, what string) error {
	return &catalog.Error{Code: catalog.CodeOutcomeUnknown, Message: what + ". The call was sent, so it may have taken effect: check its effect (read it back) before calling " + name + " again."}
}

// notSent reports an error that happened before the request left: no
// connection could be made.
func notSent(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	return errors.As(err, &dns)
}

// result is a 2xx answer's value: its JSON, a text as a string, other
// content as {contentType, base64}, no content as null.
func result(resp *http.Response, body []byte) (json.RawMessage, error) {
	if len(body) == 0 {
		return json.RawMessage("null"), nil
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case ct == "application/json" || strings.HasSuffix(ct, "+json"):
		if !json.Valid(body) {
			return nil, errors.New("invalid JSON")
		}
		return body, nil
	case strings.HasPrefix(ct, "text/") || (ct == "" && utf8.Valid(body)):
		return json.Marshal(string(body))
	}
	return json.Marshal(map[string]string{"contentType": ct, "base64": base64.StdEncoding.EncodeToString(body)})
}

// apiMessage is the API's own words from an error answer: the message,
// error, detail or title member of a JSON body, or the body's text, cut
// to Options.MaxErrorBytes.
func (c *caller) apiMessage(body []byte) string {
	var obj map[string]any
	if json.Unmarshal(body, &obj) == nil {
		for _, k := range []string{"message", "error_description", "error", "detail", "title"} {
			if s, ok := obj[k].(string); ok && s != "" {
				if errs, ok := obj["errors"]; ok {
					if b, err := json.Marshal(errs); err == nil {
						s += " " + string(b)
					}
				}
				return cut(s, c.s.MaxErrorBytes)
			}
		}
	}
	s := strings.TrimSpace(string(body))
	if s == "" {
		return "(no message)"
	}
	return cut(s, c.s.MaxErrorBytes)
}

// cut shortens s to at most n bytes, on a character boundary, marking
// the cut.
func cut(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}

// retryAfter says when to retry: after the answer's Retry-After seconds
// when it gives them, else later.
func retryAfter(resp *http.Response) string {
	if n, err := strconv.Atoi(strings.TrimSpace(resp.Header.Get("Retry-After"))); err == nil && n >= 0 && n < 86400 {
		return fmt.Sprintf("retry after %d seconds", n)
	}
	return "retry later"
}
