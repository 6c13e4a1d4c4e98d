package sandbox

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
	"github.com/evanw/esbuild/pkg/api"
	"github.com/go-sourcemap/sourcemap"
)

// sourceName is the file name stack traces and errors use for the model's
// TypeScript.
const sourceName = "agent.ts"

// wrapPrefix and wrapSuffix turn the program into an async function so
// top-level await and a final return work. The prefix stays on line 1 so
// only line-1 columns shift.
const (
	wrapPrefix = "(async () => {"
	wrapSuffix = "\n})()"
)

// compiled is a transpiled and compiled program. It is immutable and shared
// between executions.
type compiled struct {
	// hash is the SHA-256 of the TypeScript source.
	hash [32]byte
	// js is the transpiled JavaScript with its inline source map; it is
	// what crosses to a worker process.
	js string
	// program is js compiled by goja.
	program *goja.Program
	// smap maps positions in js back to the wrapped TypeScript; nil if js
	// carries no inline source map.
	smap *sourcemap.Consumer
	// lines is the number of lines of the model's source; positions past it
	// belong to the wrapper.
	lines int
}

var cache = newLRU(cacheMaxEntries, cacheMaxBytes)

// compile checks the size of ts, transpiles and compiles it, using the cache
// keyed by the source's hash.
func compile(ts string, maxCodeBytes int) (*compiled, error) {
	if len(ts) > maxCodeBytes {
		return nil, &Error{Kind: KindCodeTooLarge, Message: fmt.Sprintf(
			"the program is %d bytes, over the %d-byte limit. Split the work into several smaller executions, or move repeated logic into a loop.",
			len(ts), maxCodeBytes)}
	}
	hash := sha256.Sum256([]byte(ts))
	if c, ok := cache.get(hash); ok {
		return c, nil
	}
	js, err := transpile(ts)
	if err != nil {
		return nil, err
	}
	c, err := compileJS(hash, js)
	if err != nil {
		var se *Error
		if errors.As(err, &se) && se.Line > 0 {
			lines := strings.Split(ts, "\n")
			if se.Line <= len(lines) {
				se.Source = strings.TrimRight(lines[se.Line-1], "\r")
			}
		}
		return nil, err
	}
	cache.put(hash, c)
	return c, nil
}

// compiledFromJS compiles JavaScript produced by transpile, using the cache.
// Worker processes use it: the parent transpiles and sends the JavaScript.
func compiledFromJS(hash [32]byte, js string) (*compiled, error) {
	if c, ok := cache.get(hash); ok && c.js == js {
		return c, nil
	}
	c, err := compileJS(hash, js)
	if err != nil {
		return nil, err
	}
	cache.put(hash, c)
	return c, nil
}

// esbuildSupported turns off what goja lacks so esbuild lowers it.
var esbuildSupported = map[string]bool{
	"async-generator":                 false,
	"for-await":                       false,
	"using":                           false,
	"top-level-await":                 false,
	"regexp-match-indices":            false,
	"regexp-set-notation":             false,
	"regexp-unicode-property-escapes": false,
	"decorators":                      false,
	"dynamic-import":                  false,
	"import-meta":                     false,
}

// transpile turns the model's TypeScript into JavaScript goja runs, with an
// inline source map back to the TypeScript.
func transpile(ts string) (string, error) {
	res := api.Transform(wrapPrefix+ts+wrapSuffix, api.TransformOptions{
		Loader:         api.LoaderTS,
		Target:         api.ESNext,
		Supported:      esbuildSupported,
		Sourcemap:      api.SourceMapInline,
		SourcesContent: api.SourcesContentExclude,
		Sourcefile:     sourceName,
		LogLevel:       api.LogLevelSilent,
	})
	if len(res.Errors) > 0 {
		return "", syntaxError(ts, res.Errors[0])
	}
	return string(res.Code) + linesTrailer + strconv.Itoa(strings.Count(ts, "\n")+1) + "\n", nil
}

// linesTrailer records the number of lines of the model's source at the end
// of the JavaScript, so positions in the wrapper can be told apart.
const linesTrailer = "//# lines="

// syntaxError converts an esbuild message to a SYNTAX error in the
// coordinates of the unwrapped source.
func syntaxError(ts string, m api.Message) *Error {
	e := &Error{Kind: KindSyntax, Message: m.Text}
	if m.Location == nil {
		return e
	}
	lines := strings.Split(ts, "\n")
	line, col := m.Location.Line, m.Location.Column // 1-based line, 0-based byte column
	if line == 1 {
		col -= len(wrapPrefix)
		if col < 0 {
			col = 0
		}
	}
	if line > len(lines) {
		// The error is in the wrapper's closing line: point past the end of
		// the model's last line.
		line = len(lines)
		col = len(lines[line-1])
	}
	e.Line, e.Column = line, col+1
	e.Source = strings.TrimRight(lines[line-1], "\r")
	if t := strings.TrimSpace(e.Source); strings.HasPrefix(t, "import ") || strings.HasPrefix(t, "export ") {
		e.Message += ". Modules are not available: the program is the body of an async function, so drop import/export and call the functions of the provided namespaces directly."
	}
	return e
}

// strictError is a SYNTAX error goja reported at a generated position.
func (c *compiled) strictError(msg string, line, col int) *Error {
	e := &Error{Kind: KindSyntax, Message: msg + " (the program runs in strict mode)"}
	if ol, oc, ok := c.original(line, col); ok {
		e.Line, e.Column = ol, oc
	}
	return e
}

// inlineMapPrefix starts the source-map comment esbuild appends.
const inlineMapPrefix = "//# sourceMappingURL=data:application/json;base64,"

// compileJS compiles transpiled JavaScript in strict mode. goja's own
// source-map support is off (it never reads files, and its column lookup is
// off by one); the inline map is decoded here and applied by the engine.
func compileJS(hash [32]byte, js string) (*compiled, error) {
	boundRegexps() // regexp literals are compiled here, with the timeout of the moment
	c := &compiled{hash: hash, js: js}
	if i := strings.LastIndex(js, inlineMapPrefix); i >= 0 {
		b64, _, _ := strings.Cut(js[i+len(inlineMapPrefix):], "\n")
		raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
		if err == nil {
			c.smap, _ = sourcemap.Parse(sourceName, raw)
		}
	}
	if i := strings.LastIndex(js, linesTrailer); i >= 0 {
		c.lines, _ = strconv.Atoi(strings.TrimSpace(js[i+len(linesTrailer):]))
	}
	// esbuild accepts some sloppy-mode code that goja, compiling in strict
	// mode, refuses (a variable named let, octal literals, with): those
	// are the model's syntax errors, mapped back to its TypeScript.
	ast, err := parser.ParseFile(nil, sourceName, js, 0, parser.WithDisableSourceMaps)
	if err != nil {
		var list parser.ErrorList
		if errors.As(err, &list) && len(list) > 0 {
			return nil, c.strictError(list[0].Message, list[0].Position.Line, list[0].Position.Column)
		}
		return nil, &Error{Kind: KindSyntax, Message: err.Error() + " (the program runs in strict mode)"}
	}
	prog, err := goja.CompileAST(ast, true)
	if err != nil {
		var se *goja.CompilerSyntaxError
		if errors.As(err, &se) && se.File != nil {
			p := se.File.Position(se.Offset)
			return nil, c.strictError(se.Message, p.Line, p.Column)
		}
		return nil, &Error{Kind: KindSyntax, Message: err.Error() + " (the program runs in strict mode)"}
	}
	c.program = prog
	return c, nil
}
