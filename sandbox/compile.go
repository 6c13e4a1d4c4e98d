package sandbox

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"sync"

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
	// key is the program's cache key (see sourceKey).
	key [32]byte
	// ts is the model's TypeScript; a cache hit must match it.
	ts string
	// js is the transpiled JavaScript goja compiled.
	js string
	// program is js compiled by goja.
	program *goja.Program
	// rawMap is the source map from js back to the wrapped TypeScript.
	// transpile does not make one: most executions never map a position,
	// and the map costs about a tenth of esbuild's time. The first
	// position to map makes it (sourceMap) into smap.
	rawMap  []byte
	mapOnce sync.Once
	smap    *sourcemap.Consumer
	// lines is the number of lines of the model's source; positions past it
	// belong to the wrapper.
	lines int
	// direct is true for plain JavaScript compiled without esbuild
	// (compileDirect): js is the wrapped source itself, positions need no
	// source map (directOriginal).
	direct bool
	// anchors are the sorted byte offsets in js where esbuild's source map
	// would have had a mapping (compileDirect), for directOriginal.
	anchors []int
	// redirects maps positions the esbuild path reports elsewhere
	// (plainWalker.redirects).
	redirects map[int]int
	// file is the name goja's stack frames give the program; "" is
	// sourceName.
	file string
	// shapeOnce and shapeErr hold a sub-program's shape check
	// (subShape).
	shapeOnce sync.Once
	shapeErr  error
}

// fileName is the name goja's stack frames give the program.
func fileName(file string) string {
	if file == "" {
		return sourceName
	}
	return file
}

// sourceMap returns the source map, making it on first use by running
// esbuild again with the same options plus a map: the code it prints is
// the same, so the map fits c.js. It returns nil when there is none.
func (c *compiled) sourceMap() *sourcemap.Consumer {
	c.mapOnce.Do(func() {
		raw := c.rawMap
		if raw == nil && c.ts != "" && !c.direct {
			opts := transformOptions
			opts.Sourcemap = api.SourceMapExternal
			opts.SourcesContent = api.SourcesContentExclude
			res := api.Transform(wrapPrefix+c.ts+wrapSuffix, opts)
			if len(res.Errors) > 0 || string(res.Code) != c.js {
				return
			}
			raw = res.Map
		}
		if len(raw) > 0 {
			c.smap, _ = sourcemap.Parse(sourceName, raw)
		}
	})
	return c.smap
}

// source is a program to run: the model's TypeScript and its cache key.
type source struct {
	key       [32]byte
	ts        string
	partition string   // the caller (RunOptions.Partition), for admission
	entropy   *Entropy // RunOptions.Entropy: not part of the cache key
	// file names the program in goja's stack frames; "" is sourceName.
	// Sub-programs (subprogram.go) have names of their own, so a frame
	// says which program it is in. It is part of key.
	file string
}

// sourceKey is the cache key of ts run in partition: runs in different
// partitions never share a cached compilation, so a fast cache hit tells
// nobody what another partition ran.
func sourceKey(partition, ts string) [32]byte {
	h := sha256.New()
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(partition)))
	h.Write(n[:])
	h.Write([]byte(partition))
	h.Write([]byte(ts))
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// codeTooLarge is the error for a source over maxCodeBytes, or nil.
func codeTooLarge(ts string, maxCodeBytes int) error {
	if len(ts) <= maxCodeBytes {
		return nil
	}
	return &Error{Kind: KindCodeTooLarge, Message: fmt.Sprintf(
		"the program is %d bytes, over the %d-byte limit. Split the work into several smaller executions, or move repeated logic into a loop.",
		len(ts), maxCodeBytes)}
}

// maxJSBytes bounds the JavaScript esbuild may produce from a source of at
// most maxCodeBytes: lowering can grow a program, and goja's compiled form
// costs about twelve times its JavaScript in heap.
func maxJSBytes(maxCodeBytes int) int { return 8*maxCodeBytes + 64<<10 }

// cache holds compiled programs: in process, or in one worker process.
var cache = newLRU(cacheMaxEntries, cacheMaxBytes)

// useWorkerCache shrinks the cache in a worker process, once at start-up:
// a worker keeps few compiled programs, whose heap counts against the
// watchdog's baseline, not the script's budget, but should stay small.
func useWorkerCache() { cache = newLRU(32, 4<<20) }

// compile transpiles and compiles src, using the cache. Its cost grows
// with the source in ways no size limit bounds (goja's parser backtracks
// exponentially on nested arrow functions with defaults), so it runs only
// where a deadline can stop it: in a worker process, or in process on a
// goroutine the caller abandons at the hard deadline.
func compile(src source, maxCodeBytes int) (*compiled, error) {
	if err := codeTooLarge(src.ts, maxCodeBytes); err != nil {
		return nil, err
	}
	if c, ok := cache.get(src.key); ok && c.ts == src.ts {
		return c, nil
	}
	if c := compileDirect(src.ts, src.file); c != nil {
		c.key = src.key
		cache.put(src.key, c)
		return c, nil
	}
	c, err := transpile(src.ts)
	if err != nil {
		return nil, err
	}
	if n, max := len(c.js), maxJSBytes(maxCodeBytes); n > max {
		return nil, &Error{Kind: KindCodeTooLarge, Message: fmt.Sprintf(
			"the program transpiles to %d bytes of JavaScript, over the %d-byte limit (deeply nested blocks or generated code grow it). Write flatter code: loops and functions instead of repeated or nested blocks.",
			n, max)}
	}
	c.key, c.ts, c.file = src.key, src.ts, src.file
	if err := c.compileJS(); err != nil {
		var se *Error
		if errors.As(err, &se) && se.Line > 0 {
			lines := strings.Split(src.ts, "\n")
			if se.Line <= len(lines) {
				se.Source = strings.TrimRight(lines[se.Line-1], "\r")
			}
		}
		return nil, err
	}
	cache.put(src.key, c)
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

// transformOptions are esbuild's options for the model's TypeScript.
// Whitespace is minified: esbuild indents every nesting level, which made
// 10 KB of nested blocks 50 MB of JavaScript; positions come from the
// source map, not the layout.
var transformOptions = api.TransformOptions{
	Loader:           api.LoaderTS,
	Target:           api.ESNext,
	Supported:        esbuildSupported,
	MinifyWhitespace: true,
	Sourcefile:       sourceName,
	LogLevel:         api.LogLevelSilent,
}

// transpile turns the model's TypeScript into JavaScript goja runs. The
// source map is made later, if a position must be mapped (sourceMap).
func transpile(ts string) (*compiled, error) {
	res := api.Transform(wrapPrefix+ts+wrapSuffix, transformOptions)
	if len(res.Errors) > 0 {
		return nil, syntaxError(ts, res.Errors[0])
	}
	return &compiled{js: string(res.Code), ts: ts, lines: strings.Count(ts, "\n") + 1}, nil
}

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

// compileJS compiles c.js in strict mode. goja's own source-map support is
// off (it never reads files, and its column lookup is off by one); the
// engine applies c's source map itself.
func (c *compiled) compileJS() error {
	boundRegexps() // regexp literals are compiled here, with the timeout of the moment
	// esbuild accepts some sloppy-mode code that goja, compiling in strict
	// mode, refuses (a variable named let, octal literals, with): those
	// are the model's syntax errors, mapped back to its TypeScript.
	ast, err := parser.ParseFile(nil, fileName(c.file), c.js, 0, parser.WithDisableSourceMaps)
	if err != nil {
		var list parser.ErrorList
		if errors.As(err, &list) && len(list) > 0 {
			return c.strictError(list[0].Message, list[0].Position.Line, list[0].Position.Column)
		}
		return &Error{Kind: KindSyntax, Message: err.Error() + " (the program runs in strict mode)"}
	}
	prog, err := goja.CompileAST(ast, true)
	if err != nil {
		var se *goja.CompilerSyntaxError
		if errors.As(err, &se) && se.File != nil {
			p := se.File.Position(se.Offset)
			return c.strictError(se.Message, p.Line, p.Column)
		}
		return &Error{Kind: KindSyntax, Message: err.Error() + " (the program runs in strict mode)"}
	}
	c.program = prog
	return nil
}
