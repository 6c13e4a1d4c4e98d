package mcpsource

// Reading a stdio server's output before go-sdk does.
//
// A tool list go-sdk would refuse whole: go-sdk reads no JSON
// message nested deeper than 1,000 levels, so one tool with a deeper
// schema made the whole tools/list answer unreadable: Connect failed, and
// the gateway did not start, with every other server. Over stdio, the
// server's output is read through mendLines, which takes such tools out
// of a tools/list answer (by bytes, without a JSON reader, so no depth
// stops it) and reports them as skipped.
//
// A flood of notifications/tools/list_changed: each one is answered here
// by asking the refresher for a listing, and never reaches go-sdk.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// wireDepth is the deepest JSON go-sdk reads (its internal/json
// defaultMaxDepth).
const wireDepth = 1000

// commandTransport is mcp.CommandTransport with the server's output read
// through a mendLines.
type commandTransport struct {
	cmd *exec.Cmd
	u   *Upstream
}

func (t *commandTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	stdout, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := t.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := t.cmd.Start(); err != nil {
		return nil, err
	}
	r := &mendLines{r: bufio.NewReaderSize(stdout, 64<<10), u: t.u}
	return (&mcp.IOTransport{Reader: io.NopCloser(r), Writer: &stopper{cmd: t.cmd, stdin: stdin}}).Connect(ctx)
}

// stopper ends the server as mcp.CommandTransport does: close its input,
// wait a second, SIGTERM, wait, SIGKILL.
type stopper struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
}

func (s *stopper) Write(p []byte) (int, error) { return s.stdin.Write(p) }

func (s *stopper) Close() error {
	if err := s.stdin.Close(); err != nil {
		return fmt.Errorf("closing stdin: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- s.cmd.Wait() }()
	wait := func() (error, bool) {
		select {
		case err := <-exited:
			return err, true
		case <-time.After(time.Second):
			return nil, false
		}
	}
	if err, ok := wait(); ok {
		return err
	}
	if s.cmd.Process.Signal(syscall.SIGTERM) == nil {
		if err, ok := wait(); ok {
			return err
		}
	}
	if err := s.cmd.Process.Kill(); err != nil {
		return err
	}
	if err, ok := wait(); ok {
		return err
	}
	return fmt.Errorf("unresponsive subprocess")
}

// mendLines passes the server's newline-delimited messages through,
// mending each one nested deeper than go-sdk reads (see mendList). A
// line longer than mcp.DefaultMaxLineLength passes unread: go-sdk ends
// the session on it, as it would without this reader.
type mendLines struct {
	r       *bufio.Reader
	u       *Upstream
	pending []byte
	long    bool // passing the rest of an over-long line through
	// sse reads an event stream: only "data:" lines hold messages, and
	// list_changed notifications pass (an event cannot lose its data).
	sse bool
}

func (m *mendLines) Read(p []byte) (int, error) {
	for len(m.pending) == 0 {
		var line []byte
		for {
			chunk, err := m.r.ReadSlice('\n')
			if m.long {
				m.long = err == bufio.ErrBufferFull
				m.pending = append(m.pending[:0], chunk...)
				if len(chunk) == 0 && err != nil {
					return 0, err
				}
				break
			}
			line = append(line, chunk...)
			if err == bufio.ErrBufferFull {
				if len(line) > mcp.DefaultMaxLineLength {
					m.long, m.pending = true, line
					break
				}
				continue
			}
			if err != nil && len(line) == 0 {
				return 0, err
			}
			if m.sse {
				if data, ok := bytes.CutPrefix(line, []byte("data:")); ok && depth(data) > wireDepth {
					line = append([]byte("data:"), m.u.mendList(data)...)
				}
				m.pending = line
				break
			}
			if listChanged(line) {
				// A flood of these once took 165% of a core in go-sdk's
				// dispatch; here each costs a look at a short line.
				m.u.askRefresh()
				line = line[:0]
				continue
			}
			if depth(line) > wireDepth {
				line = m.u.mendList(line)
			}
			m.pending = line
			break
		}
	}
	n := copy(p, m.pending)
	m.pending = m.pending[n:]
	return n, nil
}

// listChanged reports whether line is a notifications/tools/list_changed,
// which mendLines answers itself (asking for a listing, which the
// refresher debounces) instead of passing it to go-sdk.
func listChanged(line []byte) bool {
	if len(line) > 512 || !bytes.Contains(line, []byte(`notifications/tools/list_changed`)) {
		return false
	}
	var n struct {
		Method string           `json:"method"`
		ID     *json.RawMessage `json:"id"`
	}
	return json.Unmarshal(line, &n) == nil && n.Method == "notifications/tools/list_changed" && n.ID == nil
}

// mendList takes out of a tools/list answer (one JSON-RPC message) the
// tools nested deeper than go-sdk reads, and records them as skipped for
// the listing under way. Other messages are returned unchanged.
func (u *Upstream) mendList(msg []byte) []byte {
	s := scanTools(msg)
	if s.open < 0 {
		return msg
	}
	var kept [][]byte
	for _, t := range s.tools {
		if t.depth+3 <= wireDepth {
			kept = append(kept, msg[t.start:t.end])
			continue
		}
		var name string
		if json.Unmarshal(t.name, &name) != nil {
			name = "(unnamed)"
		}
		u.mu.Lock()
		u.unreadable = append(u.unreadable, Skipped{name, fmt.Sprintf("its declaration nests %d levels deep, more than an MCP client reads (%d)", t.depth, wireDepth-3)})
		u.mu.Unlock()
	}
	out := append([]byte{}, msg[:s.open+1]...)
	out = append(out, bytes.Join(kept, []byte(","))...)
	return append(out, msg[s.close:]...)
}

// toolSpan is one element of the tools array of a message: its bytes,
// how deeply it nests, and its name member's raw JSON string.
type toolSpan struct {
	start, end, depth int
	name              []byte
}

// toolScan is where a message's result.tools array is and what it holds;
// open is -1 when it has none.
type toolScan struct {
	open, close int
	tools       []toolSpan
}

// scanTools finds result.tools in a JSON-RPC message by its bytes: the
// envelope is depth 1, the result 2, the array 3, each tool 4.
func scanTools(msg []byte) toolScan {
	s := toolScan{open: -1}
	var (
		d        int
		in, esc  bool
		strStart int
		last     []byte    // the last string at a depth of 4 or less
		key      [5][]byte // the current member name at each shallow depth
		cur      *toolSpan
		inTools  bool
	)
	for i, c := range msg {
		switch {
		case in && esc:
			esc = false
			continue
		case in && c == '\\':
			esc = true
			continue
		case in:
			if c == '"' {
				in = false
				if d <= 4 {
					last = msg[strStart : i+1]
				}
			}
			continue
		}
		switch c {
		case '"':
			in, strStart = true, i
		case ':':
			if d >= 0 && d <= 4 {
				key[d] = last
			}
		case ',':
			if cur != nil && d == 4 {
				if string(key[4]) == `"name"` && cur.name == nil && last != nil {
					cur.name = last
				}
			}
			last = nil
		case '{', '[':
			d++
			if d <= 4 {
				last = nil
			}
			switch {
			case d == 3 && c == '[' && string(key[1]) == `"result"` && string(key[2]) == `"tools"` && s.open < 0:
				s.open, inTools = i, true
			case d == 4 && inTools:
				s.tools = append(s.tools, toolSpan{start: i, depth: 1})
				cur = &s.tools[len(s.tools)-1]
			}
			if cur != nil {
				cur.depth = max(cur.depth, d-3)
			}
		case '}', ']':
			if d == 4 && cur != nil {
				if string(key[4]) == `"name"` && cur.name == nil && last != nil {
					cur.name = last
				}
				cur.end = i + 1
				cur = nil
			}
			if d == 3 && inTools {
				s.close, inTools = i, false
			}
			if d--; d < 0 {
				return toolScan{open: -1} // not well formed
			}
		}
	}
	if inTools || s.open >= 0 && s.close == 0 {
		return toolScan{open: -1} // not well formed: leave it to go-sdk
	}
	return s
}

// depth is how deeply the objects and arrays of JSON text b nest.
func depth(b []byte) int {
	d, most := 0, 0
	in, esc := false, false
	for _, c := range b {
		switch {
		case in && esc:
			esc = false
		case in && c == '\\':
			esc = true
		case in:
			in = c != '"'
		case c == '"':
			in = true
		case c == '{' || c == '[':
			if d++; d > most {
				most = d
			}
		case c == '}' || c == ']':
			d--
		}
	}
	return most
}
