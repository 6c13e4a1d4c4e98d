package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/brakinglab/codemode-go/sandbox/internal/proc"
	"github.com/brakinglab/codemode-go/sandbox/internal/wire"
)

// startTimeout bounds how long a new worker may take to answer Setup.
const startTimeout = 10 * time.Second

// worker is the parent's handle on one worker process.
type workerProc struct {
	pid  int
	cmd  *exec.Cmd
	in   *os.File // the worker's stdin, our end
	out  *os.File // the worker's stdout, our end
	w    *wire.Writer
	r    *wire.Reader
	tail *tailBuffer // the end of the worker's stderr

	exited  chan struct{} // closed once the process has been reaped
	waitErr error         // set before exited is closed
	peakRSS int64         // the process's peak resident set in bytes, set before exited is closed

	killOnce sync.Once
	uses     int // executions served; touched only by the goroutine holding the worker
}

// startWorker starts a worker process, applies its limits and waits for
// its hello.
func startWorker(path string, setup setupMsg) (*workerProc, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd := exec.Command(path)
	// ps shows argv, not the path run: name the host and say what this is.
	cmd.Args = []string{workerArgv0()}
	// An empty environment apart from the marker: nothing of the host's
	// configuration or secrets is visible in the worker.
	cmd.Env = []string{workerEnv + "=1"}
	cmd.Dir = "/"
	cmd.Stdin, cmd.Stdout = inR, outW
	tail := &tailBuffer{max: 4 << 10}
	cmd.Stderr = tail
	cmd.SysProcAttr = proc.SysProcAttr()
	err = proc.StartCmd(cmd)
	// The child holds its own copies of these ends now.
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	_, inIO := proc.PipeIO(inW)
	outIO, _ := proc.PipeIO(outR)
	w := &workerProc{
		pid: cmd.Process.Pid, cmd: cmd, in: inW, out: outR,
		w: wire.NewWriter(inIO), r: wire.NewReader(outIO),
		tail: tail, exited: make(chan struct{}),
	}
	go func() {
		w.waitErr = cmd.Wait()
		w.peakRSS = proc.MaxRSS(cmd.ProcessState)
		proc.ReleaseSpawn()
		close(w.exited)
	}()

	t := time.AfterFunc(startTimeout, w.kill)
	defer t.Stop()
	hello, err := w.handshake(setup)
	if err != nil {
		w.kill()
		return nil, fmt.Errorf("worker %s: %w%s", path, err, w.stderrNote())
	}
	if hello.Error != "" {
		w.kill()
		return nil, fmt.Errorf("worker %s: %s", path, hello.Error)
	}
	return w, nil
}

func (w *workerProc) handshake(setup setupMsg) (helloMsg, error) {
	var hello helloMsg
	if err := w.w.Write(wire.Frame{Type: wire.Setup, A: mustJSON(setup)}); err != nil {
		return hello, fmt.Errorf("sending setup: %w", err)
	}
	f, err := w.r.Read()
	if err != nil {
		return hello, fmt.Errorf("reading hello: %w", err)
	}
	if f.Type != wire.Hello {
		return hello, fmt.Errorf("got a %v frame instead of hello", f.Type)
	}
	if err := json.Unmarshal(f.A, &hello); err != nil {
		return hello, fmt.Errorf("decoding hello: %w", err)
	}
	return hello, nil
}

// alive reports whether the process has not exited.
func (w *workerProc) alive() bool {
	select {
	case <-w.exited:
		return false
	default:
		return true
	}
}

// kill kills the worker's process group, closes our pipe ends and waits
// until the process is reaped. It is safe to call more than once and from
// any goroutine.
func (w *workerProc) kill() {
	w.killOnce.Do(func() {
		proc.KillGroup(w.pid) // the whole group (Setpgid)
		_ = w.cmd.Process.Kill()
		w.in.Close()
		w.out.Close()
	})
	<-w.exited
}

// stderrNote returns the end of the worker's stderr for diagnostics.
func (w *workerProc) stderrNote() string {
	if s := w.tail.String(); s != "" {
		return ": " + s
	}
	return ""
}

// tailBuffer keeps the first and the last max bytes written to it: a Go
// fatal error names its cause on the first line and may follow it with
// long goroutine dumps.
type tailBuffer struct {
	mu   sync.Mutex
	max  int
	head []byte
	buf  []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if room := t.max - len(t.head); room > 0 {
		k := min(room, len(p))
		t.head = append(t.head, p[:k]...)
		p = p[k:]
	}
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return n, nil
}

// String returns the beginning and the end of what was written.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.buf) == 0 {
		return string(t.head)
	}
	return string(t.head) + "\n…\n" + string(t.buf)
}

// exitStatus describes how the process ended, once it has.
func (w *workerProc) exitStatus() (signal syscall.Signal, code int, ok bool) {
	<-w.exited
	var ee *exec.ExitError
	if !errors.As(w.waitErr, &ee) {
		return 0, 0, w.waitErr == nil
	}
	ws, isWS := ee.Sys().(syscall.WaitStatus)
	if !isWS {
		return 0, ee.ExitCode(), true
	}
	if ws.Signaled() {
		return ws.Signal(), -1, true
	}
	return 0, ws.ExitStatus(), true
}
