package sandbox

// Running a host call and settling it: starting the call, recording its
// outcome and warnings, and resolving or rejecting the script's promise.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/dop251/goja"
)

// asyncHost is a Host that starts a call without needing a goroutine of
// its own: a worker's relay, whose answers arrive on the protocol reader.
// done must be called exactly once, from any goroutine, with the host's
// answer and the warnings it attached, and must not block. ctx ending asks
// the host to stop; done still reports what the host then returned.
type asyncHost interface {
	Host
	startCall(ctx context.Context, name string, args json.RawMessage, done func(out json.RawMessage, warnings []string, err error))
}

// runCall runs one host call on its own goroutine and posts the result.
func (e *execution) runCall(id int, pos CallPosition, name string, args json.RawMessage) {
	defer e.wg.Done()
	start := time.Now()
	r := callResult{id: id}
	ctx, sink := withWarnings(withCallPosition(e.callCtx, pos))
	func() {
		defer func() {
			if p := recover(); p != nil {
				r.out, r.err = nil, &hostPanic{name: name, value: fmt.Sprint(p)}
			}
		}()
		r.out, r.err = e.host.Call(ctx, name, args)
	}()
	r.warnings = sink.take()
	r.afterCancel = e.callCtx.Err() != nil
	r.dur = time.Since(start)
	e.results <- r // buffered for MaxCalls results: never blocks
}

// settle resolves or rejects the promise of a finished call on the loop
// goroutine; goja runs the continuations inside resolve/reject.
func (e *execution) settle(r callResult) error {
	pc := e.record(r)
	if r.err == nil {
		v, err := e.parseResult(r.out)
		if err == nil {
			e.keepResult(v, e.calls[r.id].Name, pc.site, pc.subSite)
			return pc.resolve(v)
		}
		rec := &e.calls[r.id]
		rec.Outcome, rec.Error = OutcomeError, err.Error()
		rec.Line, rec.Column = e.sitePosition(pc.site)
		r.err = err
	}
	e.warnResultArgs(e.calls[r.id].Name, pc, r.err)
	obj := e.hostError(r.err)
	e.markCallError(obj)
	if site := pc.site + pc.subSite; site != "" {
		// Point the error at the call, since it was made on the loop; a
		// sub-program's frame lets it name the line in its code.
		_ = obj.DefineDataProperty("stack", e.vm.ToValue(errorMessage(obj)+"\n"+site), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	}
	return pc.reject(obj)
}

// record takes a finished call off the pending list and records its
// outcome and warnings, without running any JavaScript. An error returned
// once the execution had cancelled the call's context is a cancellation:
// the host stopped because it was asked to.
func (e *execution) record(r callResult) pendingCall {
	pc := e.pending[r.id]
	delete(e.pending, r.id)
	rec := &e.calls[r.id]
	rec.Duration = r.dur
	switch {
	case r.err == nil:
		rec.Outcome = OutcomeOK
	case errors.Is(r.err, ErrOutcomeUnknown):
		// The host says the work may have been done, cancelled or not.
		rec.Outcome, rec.Error = OutcomeUnknown, callErrorText(r.err)
		rec.Line, rec.Column = e.sitePosition(pc.site)
	case r.afterCancel:
		rec.Outcome, rec.Error = OutcomeCancelled, r.err.Error()
	default:
		rec.Outcome, rec.Error = OutcomeError, callErrorText(r.err)
		// Where it failed, for a model whose script caught the error.
		rec.Line, rec.Column = e.sitePosition(pc.site)
	}
	if len(r.warnings) > 0 {
		line, col := e.sitePosition(pc.site)
		for _, m := range r.warnings {
			if len(e.warnings) >= maxHostWarnings {
				e.droppedWarnings++
				continue
			}
			e.warnings = append(e.warnings, Warning{Kind: WarningHost, Function: rec.Name, Line: line, Column: col, Message: m})
		}
	}
	return pc
}

// parseJSON turns a host result into a fresh JavaScript value.
func (e *execution) parseJSON(b json.RawMessage) (goja.Value, error) {
	if len(b) == 0 {
		return goja.Undefined(), nil
	}
	v, err := jsonToValue(e.vm, b)
	if err != nil {
		return nil, fmt.Errorf("the host returned a result that is not valid JSON")
	}
	return v, nil
}

// parseResult is parseJSON for a host call's result, whose objects and
// arrays get the recording prototypes of origins.go.
func (e *execution) parseResult(b json.RawMessage) (goja.Value, error) {
	if len(b) == 0 {
		return goja.Undefined(), nil
	}
	var marks *origins
	if e.marking {
		if !e.origins.primed {
			e.primeOrigins()
		}
		marks = &e.origins
	}
	v, err := resultToValue(e.vm, b, marks)
	if err != nil {
		return nil, fmt.Errorf("the host returned a result that is not valid JSON")
	}
	return v, nil
}

// hostError converts a host error into a JavaScript Error: message is
// err.Error(); the properties of its JSON form, if it marshals to an
// object, are copied onto it.
func (e *execution) hostError(err error) *goja.Object {
	obj := e.newJSError(e.errorCtor, err.Error())
	m, ok := err.(json.Marshaler)
	if !ok {
		return obj
	}
	b, merr := m.MarshalJSON()
	if merr != nil || len(b) == 0 || b[0] != '{' {
		return obj
	}
	v, perr := e.parseJSON(b)
	if perr != nil {
		return obj
	}
	props := v.ToObject(e.vm)
	for _, k := range props.Keys() {
		if k == "message" || k == "stack" {
			continue
		}
		_ = obj.Set(k, props.Get(k))
	}
	return obj
}

// markCallError remembers o as the error a host call was rejected with
// (see execution.mainFailed).
func (e *execution) markCallError(o *goja.Object) {
	if e.callErrors == nil {
		e.callErrors = map[*goja.Object]struct{}{}
	}
	e.callErrors[o] = struct{}{}
}

// callErrorText is what a call record says about a host error: its
// message, then, compact, the members of its JSON object other than the
// message (a catalog validation error's issues). A script that catches
// the error and goes on leaves only the record to say why the call failed.
func callErrorText(err error) string {
	msg := err.Error()
	jm, ok := err.(json.Marshaler)
	if !ok {
		return msg
	}
	b, merr := jm.MarshalJSON()
	var m map[string]json.RawMessage
	if merr != nil || len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &m) != nil {
		return msg
	}
	delete(m, "message") // never copied onto the script's Error either
	delete(m, "stack")
	var e string
	if json.Unmarshal(m["error"], &e) == nil && e == msg {
		delete(m, "error")
	}
	if len(m) == 0 {
		return msg
	}
	rest, _ := json.Marshal(m)
	return msg + " " + string(rest)
}
