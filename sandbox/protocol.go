package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// The JSON payloads of the worker protocol (see internal/wire for framing).

// workerEnv is the environment variable that turns a process started by the
// pool into a worker. The worker's environment holds nothing else.
const workerEnv = "CODEMODE_SANDBOX_WORKER"

// protocolVersion changes whenever the worker protocol does; a worker
// binary (Options.WorkerPath) built from another version refuses to start.
const protocolVersion = 6

// setupMsg is the first frame a worker reads.
type setupMsg struct {
	// Version is the parent's protocolVersion.
	Version int `json:"version"`
	// DataHeadroom is how far RLIMIT_DATA is set above the worker's data
	// size at start, in bytes; 0 applies no cap.
	DataHeadroom int64 `json:"dataHeadroom"`
	// MemoryBytes is the sandbox's maximum memory limit; the worker sizes
	// its Go memory limit and maximum stack from it.
	MemoryBytes int64 `json:"memoryBytes"`
}

// helloMsg answers setupMsg.
type helloMsg struct {
	PID       int    `json:"pid"`
	DataLimit int64  `json:"dataLimit"` // as applied; 0 when none
	Error     string `json:"error,omitempty"`
}

// execMsg starts one execution; the frame's B field is the TypeScript,
// which the worker compiles under the execution's deadline.
type execMsg struct {
	// Key is the program's cache key (sourceKey: partition and source).
	Key       []byte              `json:"key"`
	Limits    Limits              `json:"limits"`
	Functions map[string][]string `json:"functions"`
	Free      []string            `json:"free,omitempty"`     // free namespaces (FreeHost)
	Sub       []string            `json:"sub,omitempty"`      // sub-program namespaces (SubprogramHost)
	Explain   bool                `json:"explain,omitempty"`  // the host is an Explainer
	Withhold  bool                `json:"withhold,omitempty"` // the host is a Withholder
	// Entropy is RunOptions.Entropy: record the clock and Math.random,
	// replaying these values first.
	Entropy *Entropy `json:"entropy,omitempty"`
}

// doneMsg ends one execution.
type doneMsg struct {
	Result *Result `json:"result,omitempty"`
	Error  *Error  `json:"error,omitempty"`
	// Dirty asks the parent not to reuse this worker.
	Dirty bool `json:"dirty,omitempty"`
}

// doneDecodeOptions make go-json-experiment read a Done frame as
// encoding/json, which wrote it, would: durations as nanoseconds, and as
// permissive about duplicate names and invalid UTF-8.
var doneDecodeOptions = jsonv2.JoinOptions(jsonv1.FormatDurationAsNano(true),
	jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))

// decodeDone reads a Done frame. Every worker execution ends with one on
// the caller's critical path, and its logs are JSON text quoted in JSON:
// go-json-experiment decodes the coaching script's 2.5 KB frame in about
// two thirds of encoding/json's instructions (TestDecodeDone checks that
// both read the same).
func decodeDone(b []byte) (doneMsg, error) {
	var d doneMsg
	err := jsonv2.Unmarshal(b, &d, doneDecodeOptions)
	return d, err
}

// hostErrMsg carries a Host.Call error from the parent to the worker.
type hostErrMsg struct {
	Message string `json:"message"`
	// Object is the error's own JSON object when it implements
	// json.Marshaler, so err.issues survives the trip.
	Object json.RawMessage `json:"object,omitempty"`
	// Panic is set when Host.Call panicked; the worker re-raises it so
	// both modes handle host panics the same way.
	Panic string `json:"panic,omitempty"`
	// Unknown: the error is marked with ErrOutcomeUnknown.
	Unknown bool `json:"unknown,omitempty"`
}

// encodeHostErr turns a Host.Call error into a Return frame's B field.
func encodeHostErr(err error) []byte {
	m := hostErrMsg{Message: err.Error(), Unknown: errors.Is(err, ErrOutcomeUnknown)}
	var p *hostPanic
	if errors.As(err, &p) {
		m.Panic = p.value
	}
	if jm, ok := err.(json.Marshaler); ok {
		if b, merr := jm.MarshalJSON(); merr == nil && len(b) > 0 && b[0] == '{' {
			m.Object = b
		}
	}
	b, _ := json.Marshal(m)
	return b
}

// hostPanic is a recovered panic from Host.Call, in process or in the
// parent. Its message is what the script sees; the panic's value is kept
// for the host's log and never shown to the script.
type hostPanic struct{ name, value string }

func (p *hostPanic) Error() string {
	return "internal error in " + p.name + "; the call failed, retrying the same call will likely fail again"
}

// relayedError is a parent's Host.Call error as seen in the worker. It
// marshals back to the original error object.
type relayedError struct {
	msg     string
	obj     json.RawMessage
	unknown bool // marked with ErrOutcomeUnknown
}

func (e *relayedError) Error() string { return e.msg }

// Is makes errors.Is(err, ErrOutcomeUnknown) hold in the worker as it
// did in the parent.
func (e *relayedError) Is(target error) bool { return e.unknown && target == ErrOutcomeUnknown }

// MarshalJSON returns the host error's own object, or {"message": …}.
func (e *relayedError) MarshalJSON() ([]byte, error) {
	if len(e.obj) > 0 {
		return e.obj, nil
	}
	return json.Marshal(map[string]string{"message": e.msg})
}

func decodeHostErr(b []byte) (*relayedError, string) {
	var m hostErrMsg
	if err := json.Unmarshal(b, &m); err != nil {
		return &relayedError{msg: fmt.Sprintf("host error could not be decoded: %v", err)}, ""
	}
	return &relayedError{msg: m.Message, obj: m.Object, unknown: m.Unknown}, m.Panic
}
